#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot bench/results/kernel_model.json: the model as ordo.ko trains it."""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    with open(src) as f:
        data = json.load(f)
    sets = data["datasets"]
    names = [d["dist"] for d in sets]
    phases = [("bulk", "after bulk load"),
              ("after_inserts", "after +20% inserts, patched")]
    panels = [
        ("leaves_read_per_get", "leaves read per GET (client walk)", None),
        ("client_cache_bytes_per_key", "client cache, bytes per key", 0.75),
        ("window_avg_leaves", "error window before TT fences (leaves)",
         None),
        ("err_leaf_avg", "mean |predicted - true| leaf", None),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(18, 4.2))
    width = 0.38
    for ax, (key, title, limit) in zip(axes, panels):
        for i, (ph, label) in enumerate(phases):
            xs = [j + (i - 0.5) * width for j in range(len(names))]
            ax.bar(xs, [d[ph][key] for d in sets], width, label=label)
        if limit:
            ax.axhline(limit, color="red", linestyle=":", label="target")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("ordo.ko's learned model, measured in the guest: "
                 f"{data['keys']} keys per dataset, 16-slot leaves")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
