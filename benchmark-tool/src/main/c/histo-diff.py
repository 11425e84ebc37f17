#!/usr/bin/env python3
"""Per-session heap by class: the difference of two `jcmd PID GC.class_histogram` outputs
(taken by dtls-heap.sh --histo-dir at FIRST and TOTAL sessions) divided by the sessions added.

    histo-diff.py FIRST.histo TOTAL.histo SESSIONS [--min BYTES]

Prints, largest first, each class whose bytes per session are at least --min (default 8):
instances per session, bytes per session, class; then the sum over all classes.
"""
import re
import sys


def read(path):
    rows = {}
    for line in open(path):
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m:
            n, b, name = int(m.group(1)), int(m.group(2)), m.group(3)
            old = rows.get(name, (0, 0))
            rows[name] = (old[0] + n, old[1] + b)
    return rows


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    first, total, sessions = read(argv[1]), read(argv[2]), int(argv[3])
    minimum = float(argv[argv.index("--min") + 1]) if "--min" in argv else 8.0
    diff = []
    for name in set(first) | set(total):
        n0, b0 = first.get(name, (0, 0))
        n1, b1 = total.get(name, (0, 0))
        diff.append(((b1 - b0) / sessions, (n1 - n0) / sessions, name))
    diff.sort(reverse=True)
    print(f"{'objects/session':>16} {'bytes/session':>14}  class")
    for b, n, name in diff:
        if abs(b) >= minimum:
            print(f"{n:16.2f} {b:14.1f}  {name}")
    print(f"{'':16} {sum(d[0] for d in diff):14.1f}  (all classes)")


if __name__ == "__main__":
    main(sys.argv)
