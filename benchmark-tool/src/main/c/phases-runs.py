#!/usr/bin/env python3
"""The flood share of `dtls-compare.sh --phases` runs taken run by run (docs/benchmarks/dtls.md).

Each file named is one run: one fresh server process, a c window with the flood at the server
between b windows with the same flood at a sink. Per run: the mean of its c windows' shares (each
c against the mean of the b windows either side, as phases-summary.py). Between fresh processes
the mean moves by more than the spread of windows within one allows, so the windows of several
runs are not independent draws of one mean; here each run is one draw: the mean of the run means
with a Student t interval over runs (runs - 1 degrees of freedom), beside the pooled-window
interval that treats every window as independent.

    phases-runs.py [--prior MEAN ...] run1.jsonl run2.jsonl ...

--prior MEAN adds the mean share (%) of an earlier run whose windows are no longer at hand.
"""
import json
import sys

T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 12: 2.18,
       15: 2.13, 20: 2.09, 25: 2.06, 30: 2.04, 40: 2.02, 60: 2.00, 120: 1.98}


def t95(df):
    return T95[max(k for k in T95 if k <= df)] if df < 1000 else 1.96


def mean(xs):
    return sum(xs) / len(xs)


def interval(xs):
    m = mean(xs)
    sd = (sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5
    return m, sd, t95(len(xs) - 1) * sd / len(xs) ** 0.5


def shares(path):
    ws = [json.loads(l) for l in open(path) if l.startswith("{") and '"phase"' in l]
    out = []
    for i, w in enumerate(ws):
        nb = [ws[j]["rps"] for j in (i - 1, i + 1) if 0 <= j < len(ws) and ws[j]["phase"] == "b"]
        if w["phase"] == "c" and nb:
            out.append(100 * w["rps"] / mean(nb))
    return out


def main(args):
    priors, files = [], []
    while args:
        if args[0] == "--prior":
            priors.append(float(args[1]))
            args = args[2:]
        else:
            files.append(args.pop(0))
    run_means, pooled = [], []
    for f in files:
        s = shares(f)
        m, sd, h = interval(s)
        print(f"{f}: {len(s)} c windows, mean {m:.1f} % (sd {sd:.1f}), 95 % interval {m - h:.1f} - {m + h:.1f} %")
        run_means.append(m)
        pooled += s
    m, sd, h = interval(pooled)
    print(f"pooled windows of these runs: {len(pooled)}, mean {m:.1f} %, 95 % interval {m - h:.1f} - {m + h:.1f} %")
    for label, ms in (("these runs", run_means), ("with the earlier runs", run_means + priors)):
        if len(ms) > 1 and (label == "these runs" or priors):
            m, sd, h = interval(ms)
            print(f"run means, {label}: {len(ms)} runs, mean {m:.1f} % (sd {sd:.1f} between runs), "
                  f"95 % interval {m - h:.1f} - {m + h:.1f} %")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    main(sys.argv[1:])
