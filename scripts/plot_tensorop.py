#!/usr/bin/env python3
"""Plots tgemm_bench_tensorop CSVs: for each element type, tgemm's and cuBLAS's TFLOP/s on every shape measured,
one panel per type. Usage: scripts/plot_tensorop.py out.png results.csv [results.csv ...]"""
import csv
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(out, paths):
    # type -> shape label -> {implementation: tflops}; a later file's row replaces an earlier one's
    data = OrderedDict()
    for path in paths:
        for r in csv.DictReader(open(path)):
            label = r["mxnxk"].replace("x", "\u00d7") + ("" if r["order_ops"] == "col NN" else " " + r["order_ops"])
            data.setdefault(r["type"], OrderedDict()).setdefault(label, {})[r["implementation"]] = float(r["tflops"])
    fig, axes = plt.subplots(len(data), 1, figsize=(11, 2.9 * len(data)), squeeze=False)
    for ax, (kind, shapes) in zip(axes[:, 0], data.items()):
        labels = list(shapes)
        x = range(len(labels))
        width = 0.4
        tgemm = [shapes[s].get("tgemm", 0) for s in labels]
        cublas = [shapes[s].get("cublas", 0) for s in labels]
        ax.bar([i - width / 2 for i in x], tgemm, width, label="tgemm", color="tab:blue")
        ax.bar([i + width / 2 for i in x], cublas, width, label="cuBLAS", color="tab:gray")
        for i, (t, c) in enumerate(zip(tgemm, cublas)):
            if c > 0:
                ax.text(i - width / 2, t, "%.2fx" % (t / c), ha="center", va="bottom", fontsize=7)
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=7)
        ax.set_ylabel("TFLOP/s")
        ax.set_title(kind + " (ratio: tgemm / cuBLAS)", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
