#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Charts of ordo-bench's JSON report (bench/results/ycsb.json):
ycsb_throughput.png (throughput by mode and workload), ycsb_latency_cdf.png
(latency CDF of YCSB C uniform, every mode) and ycsb_fallback.png (fallback
rate over the timed window of the workloads that insert, learned mode).

usage: ycsb_plot.py ycsb.json OUTDIR
"""
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def groups(runs):
    out = {}
    for r in runs:
        out.setdefault(r["group"], []).append(r)
    return [out[k] for k in sorted(out)]


def name(r):
    """A run's name: its mode, or walk@SIZE for a walk with a set cache."""
    return r.get("label", r["mode"])


def label(g):
    return f"YCSB {g[0]['workload'].upper()}\n{g[0]['dist']}" \
        if g[0]["workload"] != "append" else f"append\n{g[0]['dist']}"


def throughput(doc, path):
    gs = groups(doc["runs"])
    modes = []
    for g in gs:
        for r in g:
            if name(r) not in modes:
                modes.append(name(r))
    width = 0.8 / len(modes)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for i, m in enumerate(modes):
        xs, ys = [], []
        for j, g in enumerate(gs):
            r = next((r for r in g if name(r) == m), None)
            if r:
                xs.append(j + (i - (len(modes) - 1) / 2) * width)
                ys.append(r["ops_per_sec"])
        bars = ax.bar(xs, ys, width, label=m)
        for b, x, y in zip(bars, xs, ys):
            ax.annotate(f"{y / 1000:.1f}k", (x, y), ha="center",
                        va="bottom", fontsize=6)
    ax.set_xticks(range(len(gs)))
    ax.set_xticklabels([label(g) for g in gs])
    ax.set_ylabel("operations per second")
    ax.set_title(f"ordo-bench: {doc['keys']} {doc['key_dist']} keys "
                 "(QEMU TCG guest, soft-RoCE: compare ratios, not values)")
    ax.legend(ncol=3, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def latency_cdf(doc, path):
    g = next(g for g in groups(doc["runs"])
             if g[0]["workload"] == "c" and g[0]["dist"] == "uniform")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in g:
        xs = [p[0] for p in r["latency_cdf"]]
        ys = [p[1] for p in r["latency_cdf"]]
        ax.plot(xs, ys, marker=".", label=name(r))
    ax.set_xscale("log")
    ax.set_xlabel("latency (us)")
    ax.set_ylabel("fraction of GETs at or below")
    ax.set_title("YCSB C uniform: latency CDF")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def fallback(doc, path):
    runs = [r for r in doc["runs"] if r["mode"] == "learned" and
            r["workload"] in ("d", "append")]
    if not runs:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in runs:
        tl = r["fallback_timeline"]
        step = r["seconds"] / len(tl)
        ax.plot([step * (i + 0.5) for i in range(len(tl))],
                [100 * f for f in tl], marker=".",
                label=f"{r['workload']} {r['dist']} "
                      f"(mean {100 * r['fallback_rate']:.2f}%)")
    ax.set_xlabel("seconds into the timed window")
    ax.set_ylabel("fallback rate (% of GETs and SCANs)")
    ax.set_title("learned mode: fallbacks while keys are inserted")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    out = sys.argv[2]
    throughput(doc, os.path.join(out, "ycsb_throughput.png"))
    latency_cdf(doc, os.path.join(out, "ycsb_latency_cdf.png"))
    fallback(doc, os.path.join(out, "ycsb_fallback.png"))


if __name__ == "__main__":
    main()
