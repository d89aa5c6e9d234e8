#!/usr/bin/env python3
"""Plots a tgemm_bench CSV: TFLOP/s against size for tgemm and cuBLAS, every shape class against cuBLAS, and the
tutorial progression as bars. Usage: scripts/plot_bench.py bench.csv out.png"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        for key in ("m", "n", "k"):
            r[key] = int(r[key])
        for key in ("median_ms", "tflops", "ratio_to_cublas", "percent_of_peak"):
            r[key] = float(r[key])

    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5))

    # 1. Square sizes: TFLOP/s against n for cuBLAS and the dispatcher.
    ax = axes[0]
    square = [r for r in rows if r["set"] == "square"]
    for impl, style in (("cublas", "o-"), ("tgemm::gemm", "s-")):
        points = sorted((r["m"], r["tflops"]) for r in square if r["implementation"] == impl)
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], style, label=impl)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("m = n = k")
    ax.set_ylabel("TFLOP/s (FP32)")
    ax.set_title("Square problems")
    ax.grid(True, alpha=0.3)
    ax.legend()

    # 2. Every shape: tgemm::gemm's ratio to cuBLAS.
    ax = axes[1]
    dispatch = [r for r in rows if r["implementation"] == "tgemm::gemm"]
    labels = ["%dx%dx%d %s" % (r["m"], r["n"], r["k"], r["order"]) for r in dispatch]
    ax.barh(range(len(dispatch)), [r["ratio_to_cublas"] for r in dispatch], color="tab:orange")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(dispatch)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("tgemm::gemm speed / cuBLAS speed")
    ax.set_title("Every shape against cuBLAS")

    # 3. The tutorial's progression at the largest size where every rung ran.
    ax = axes[2]
    by_shape = defaultdict(dict)
    for r in rows:
        if r["group"] in ("seed", "cublas", "dispatch"):
            by_shape[(r["m"], r["n"], r["k"], r["order"])][r["implementation"]] = r["tflops"]
    complete = [s for s, impls in by_shape.items() if any(name.startswith("1 ") for name in impls)]
    if complete:
        shape = max(complete)
        impls = by_shape[shape]
        names = sorted((n for n in impls if n[0].isdigit()), key=lambda n: int(n.split()[0]))
        names += [n for n in ("tgemm::gemm", "cublas") if n in impls]
        ax.bar(range(len(names)), [impls[n] for n in names], color="tab:green")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("TFLOP/s")
        ax.set_title("Tutorial progression, %dx%dx%d" % shape[:3])
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
