#!/usr/bin/env python3
"""Summary of a `dtls-compare.sh --phases` run (its JSON lines on stdin or in the files named).

Per server and flood, one row per window: GET/s, p99, CPU of generator / its flood part / server,
and per CPU the kernel's system + softirq share and the packets its NET_RX processed. Then the
two ratios of docs/benchmarks/dtls.md: the server's own loss, each c against the mean of the b
windows either side of it (c / mean(b)), and the generator's cost of sending the flood, the mean
of the b windows against the mean of the a windows (b / a). Beside them the server's CPU time per
GET (server CPU / GET rate): each c against its neighbouring b windows, cost(b) / cost(c) is the
share of the GET rate the server would keep at 100 % of its core, whether or not it reached it.
"""
import json
import math
import random
import sys
from itertools import groupby


def load(paths):
    src = [open(p) for p in paths] if paths else [sys.stdin]
    for f in src:
        for line in f:
            line = line.strip()
            if line.startswith("{") and '"phase"' in line:
                yield json.loads(line)


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


# two-sided 95 % quantiles of Student's t by degrees of freedom (larger: the normal's 1.96)
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 12: 2.18,
       15: 2.13, 20: 2.09, 25: 2.06, 30: 2.04, 40: 2.02, 60: 2.00, 120: 1.98}


def t95(df):
    """The 95 % quantile for df degrees of freedom (the table's next smaller df: conservative)."""
    return T95[max(k for k in T95 if k <= df)] if df < 1000 else 1.96


def interval(xs):
    """Mean of xs and the half-width of its 95 % confidence interval (t, windows taken as independent)."""
    m = mean(xs)
    sd = (sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5
    return m, t95(len(xs) - 1) * sd / len(xs) ** 0.5


def block_bootstrap(ws, block=4, rounds=5000):
    """Ratio of the c windows' GET/s to their neighbouring b windows' mean, summed, with a 95 %
    interval from resampling blocks of consecutive c windows (neighbouring shares share a b
    window, so single windows are not independent draws)."""
    pairs = []
    for i, w in enumerate(ws):
        nb = [ws[j]["rps"] for j in (i - 1, i + 1) if 0 <= j < len(ws) and ws[j]["phase"] == "b"]
        if w["phase"] == "c" and nb:
            pairs.append((w["rps"], mean(nb)))
    blocks = [pairs[k:k + block] for k in range(0, len(pairs), block)]
    rng = random.Random(1)
    ratios = []
    for _ in range(rounds):
        pick = [p for _ in blocks for p in rng.choice(blocks)]
        ratios.append(sum(c for c, _ in pick) / sum(b for _, b in pick))
    ratios.sort()
    whole = sum(c for c, _ in pairs) / sum(b for _, b in pairs)
    return ratios[math.floor(0.025 * rounds)], whole, ratios[math.ceil(0.975 * rounds) - 1]


def cost(w):
    """The server's CPU microseconds per answered GET in a window."""
    return w["server_cpu_pct"] * 1e4 / w["rps"] if w["rps"] > 0 else float("nan")


def main():
    rows = list(load(sys.argv[1:]))
    key = lambda r: (r["label"], r["flood_rate"], r["flood_spoof"])
    for (label, rate, spoof), it in groupby(rows, key):
        ws = list(it)
        print(f"\n{label}, flood {rate:.0f}/s {'spoofed sources' if spoof else 'from many ports'}")
        print("  # ph   GET/s   p99 ms  gen%  flood%  server%  us/GET  cpu0 sys+si  cpu1 sys+si  softnet/s cpu0 cpu1  hellos/s  srv drops/s")
        for w in ws:
            c = {x["cpu"]: x for x in w["cpus"]}
            si = lambda n: c[n]["sys_pct"] + c[n]["softirq_pct"] if n in c else float("nan")
            sn = lambda n: c[n]["softnet_per_s"] if n in c else 0
            print(f"  {w['phase_index']} {w['phase']}  {w['rps']:7.0f}  {w['p99_ms']:6.2f}  {w['generator_cpu_pct']:5.1f} "
                  f"{w['flood_cpu_pct']:6.1f}  {w['server_cpu_pct']:6.1f}  {cost(w):6.2f}  {si(0):10.1f}  {si(1):10.1f}  "
                  f"{sn(0):9.0f} {sn(1):8.0f}  {w['flood_sent_per_s']:8.0f}  {w['server_socket_drops_per_s']:8.0f}")
        shares, cpu_shares = [], []
        for i, w in enumerate(ws):
            if w["phase"] != "c":
                continue
            nb = [ws[j]["rps"] for j in (i - 1, i + 1) if 0 <= j < len(ws) and ws[j]["phase"] == "b"]
            if nb:
                shares.append(w["rps"] / mean(nb))
                nbc = [cost(ws[j]) for j in (i - 1, i + 1) if 0 <= j < len(ws) and ws[j]["phase"] == "b"]
                cpu_shares.append(mean(nbc) / cost(w))
                print(f"  window {i}: c / mean(neighbouring b) = {100 * shares[-1]:.1f} %, "
                      f"server CPU per GET b / c = {100 * cpu_shares[-1]:.1f} %")
        a = [w["rps"] for w in ws if w["phase"] == "a"]
        b = [w["rps"] for w in ws if w["phase"] == "b"]
        if len(shares) > 1:
            sd = (sum((x - mean(shares)) ** 2 for x in shares) / (len(shares) - 1)) ** 0.5
            med = sorted(shares)[len(shares) // 2] if len(shares) % 2 else mean(sorted(shares)[len(shares) // 2 - 1:len(shares) // 2 + 1])
            cs = [w["rps"] for w in ws if w["phase"] == "c"]
            bs = [w["rps"] for w in ws if w["phase"] == "b"]
            print(f"  shares of {len(shares)} c windows: median {100 * med:.1f} %, sd {100 * sd:.1f} points, "
                  f"standard error of the mean {100 * sd / len(shares) ** 0.5:.1f} points; "
                  f"mean(c) / mean(b) = {100 * mean(cs) / mean(bs):.1f} %")
        if len(shares) > 2:
            m, h = interval(shares)
            mc, hc = interval(cpu_shares)
            print(f"  95 % confidence interval of the mean share: {100 * (m - h):.1f} - {100 * (m + h):.1f} % "
                  f"(mean {100 * m:.1f} %, {len(shares)} c windows); by the server's CPU per GET: "
                  f"{100 * (mc - hc):.1f} - {100 * (mc + hc):.1f} % (mean {100 * mc:.1f} %)")
        pre = [w["rps"] / ws[i - 1]["rps"] for i, w in enumerate(ws)
               if w["phase"] == "c" and i > 0 and ws[i - 1]["phase"] == "b"]
        if len(pre) > 2:
            m, h = interval(pre)
            print(f"  disjoint pairs (each c against the b window before it only): mean {100 * m:.1f} %, "
                  f"95 % interval {100 * (m - h):.1f} - {100 * (m + h):.1f} %")
        if len(shares) > 2:
            lo, mid, hi = block_bootstrap(ws)
            print(f"  sum(c) / sum(mean of neighbouring b) = {100 * mid:.1f} %, block bootstrap 95 % interval "
                  f"{100 * lo:.1f} - {100 * hi:.1f} % (blocks of 4 consecutive c windows, 5,000 resamples)")
        if shares:
            print(f"  server keeps (mean of the c windows' shares): {100 * mean(shares):.1f} % "
                  f"(lowest {100 * min(shares):.1f} %); by the server's CPU per GET: "
                  f"{100 * mean(cpu_shares):.1f} % (lowest {100 * min(cpu_shares):.1f} %)")
        if a and b:
            print(f"  generator-side cost: mean(b) / mean(a) = {100 * mean(b) / mean(a):.1f} %")


if __name__ == "__main__":
    main()
