#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot bench/results/model.json: prediction error per dataset, and the
model-size / window trade that makes the TT carry fence codes.

usage: model_plot.py model.json model_error.png
"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["linear", "noised", "uniform", "lognormal", "maplike",
         "osm", "fb", "timeseries", "books"]


def centers(m):
    # bins 0 and n-1 are under/overflow; inner bin i covers
    # [lo + (i-1)*step, lo + i*step)
    lo, step = m["err_hist_lo"], m["err_hist_step"]
    return [lo + (i - 0.5) * step for i in range(len(m["err_hist"]))]


def error_panel(ax, name, ds):
    for phase, colour, label in (("bulk", "tab:blue", "bulk load"),
                                 ("after_inserts", "tab:orange",
                                  "after +20% inserts, retrained")):
        m = ds[phase]
        h = m["err_hist"]
        total = float(sum(h)) or 1.0
        xs = centers(m)
        ys = [c / total for c in h]
        ax.step(xs, ys, where="mid", color=colour, label=label, lw=1.2)
    b = ds["bulk"]
    p = ds["after_inserts_patched"]
    ax.set_yscale("log")
    lo = b["err_hist_lo"] / 2
    ax.set_xlim(lo, -lo)
    ax.set_title(name, fontsize=11, fontweight="bold")
    ax.set_xlabel("predicted - true position (leaves)")
    ax.set_ylabel("share of stored keys")
    ax.grid(alpha=0.3)
    txt = ("%d sub-models, eps %.3g leaves\n"
           "error window %.1f leaves (max %d)\n"
           "leaves per GET (fence codes): %.4f\n"
           "model %.2f%% of inner nodes\n"
           "client cache %.2f B/key\n"
           "patched only: window %.1f leaves") % (
               b["sub_models"], b["eps_leaves"], b["window_leaves_avg"],
               b["window_leaves_max"], b["leaves_per_get"],
               b["model_pct_of_inner"], b["client_bytes_per_key"],
               p["window_leaves_avg"])
    ax.text(0.02, 0.97, txt, transform=ax.transAxes, va="top", fontsize=7.5,
            family="monospace",
            bbox=dict(boxstyle="round", fc="white", alpha=0.85, lw=0.5))
    ax.legend(fontsize=7, loc="lower center")


def sweep_panel(ax, data):
    for name in ORDER:
        ds = data["datasets"].get(name)
        if not ds:
            continue
        sw = ds["model_size_sweep"]
        xs = [s["model_pct_of_inner"] for s in sw]
        ys = [s["window_leaves_avg"] for s in sw]
        ax.plot(xs, ys, marker="o", ms=3, label=name)
    ax.axvline(1.0, color="grey", ls="--", lw=1)
    ax.axhline(1.05, color="tab:green", ls=":", lw=1)
    ax.axhline(1.0, color="black", lw=1.5)
    ax.text(1.05, 1.0, "with fence codes: 1.0000-1.04 leaves", fontsize=7,
            va="bottom")
    ax.text(0.05, 1.05, "target 1.05", fontsize=7, va="bottom",
            color="tab:green")
    ax.text(1.05, 300, "model budget\n1% of inner", fontsize=7, va="top")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("model size (% of inner-node bytes)")
    ax.set_ylabel("leaves in error window (no fence codes)")
    ax.set_title("model size vs. window, bulk load", fontsize=11,
                 fontweight="bold")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        data = json.load(f)
    cfg = data["config"]
    fig, axes = plt.subplots(2, 5, figsize=(26, 10))
    axes = axes.flatten()
    last = len(axes) - 1  # the sweep panel
    i = 0
    for name in ORDER:
        if name in data["datasets"] and i < last:
            error_panel(axes[i], name, data["datasets"][name])
            i += 1
    sweep_panel(axes[last], data)
    for ax in axes[i:last]:
        ax.axis("off")
    fig.suptitle("ordo learned model: %d keys, %d-slot leaves (random-order "
                 "load), +%d%% random inserts" % (cfg["keys"],
                                                  cfg["leaf_slots"],
                                                  cfg["insert_pct"]),
                 fontsize=13)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
