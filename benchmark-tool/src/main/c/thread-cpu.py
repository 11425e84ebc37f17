#!/usr/bin/env python3
"""Per-thread CPU and context switches of a process, from /proc (used by dtls-hs-steps.sh).

  thread-cpu.py snap PID FILE              the threads' utime+stime ticks and context switches
  thread-cpu.py diff A B SECONDS EVENTS    the difference, grouped by thread name without its
                                           trailing number: CPU as % of one core over SECONDS,
                                           voluntary / involuntary switches, also per EVENT
"""
import json
import os
import re
import sys


def snap(pid):
    out = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            st = open(f"/proc/{pid}/task/{t}/stat").read()
            comm = st[st.index("(") + 1:st.rindex(")")]
            f = st[st.rindex(")") + 2:].split()
            ticks = int(f[11]) + int(f[12])
            s = open(f"/proc/{pid}/task/{t}/status").read()
            v = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", s, re.M).group(1))
            n = int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", s, re.M).group(1))
            out[t] = [comm, ticks, v, n]
        except (OSError, ValueError, AttributeError):
            pass  # the thread ended meanwhile
    return out


def main():
    if sys.argv[1] == "snap":
        json.dump(snap(sys.argv[2]), open(sys.argv[3], "w"))
        return
    a = json.load(open(sys.argv[2]))
    b = json.load(open(sys.argv[3]))
    secs, events = float(sys.argv[4]), max(float(sys.argv[5]), 1)
    hz = os.sysconf("SC_CLK_TCK")
    groups = {}
    for t, (comm, ticks, v, n) in b.items():
        p = a.get(t, [comm, 0, 0, 0])
        e = groups.setdefault(re.sub(r"[-#]?\d+$", "", comm), [0, 0, 0, 0])
        e[0] += ticks - p[1]
        e[1] += v - p[2]
        e[2] += n - p[3]
        e[3] += 1
    total = sum(e[0] for e in groups.values())
    print(f"  total CPU {100 * total / hz / secs:.0f}% of a core over {secs:.0f} s, events {events:.0f}")
    for k, e in sorted(groups.items(), key=lambda x: -x[1][0]):
        if e[0] == 0 and e[1] + e[2] < 100:
            continue
        print(f"  {k:32s} cpu {100 * e[0] / hz / secs:5.1f}%  vcs {e[1]:8d} ({e[1] / events:.2f}/event)"
              f"  ivcs {e[2]:7d} ({e[2] / events:.2f}/event)  threads {e[3]}")


if __name__ == "__main__":
    main()
