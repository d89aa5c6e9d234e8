#!/usr/bin/env python3
"""Renders a tgemm_bench CSV as the Markdown table docs/performance.md shows.
Usage: scripts/bench_table.py bench.csv [--all]   (default: cuBLAS and tgemm::gemm rows; --all: every row)"""
import csv
import sys


def main():
    path = sys.argv[1]
    every = "--all" in sys.argv[2:]
    rows = list(csv.DictReader(open(path)))
    print("| set | m x n x k | order/ops | implementation | median ms | TFLOP/s | vs cuBLAS | % FP32 peak |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        if not every and r["group"] not in ("cublas", "dispatch"):
            continue
        print("| %s | %sx%sx%s | %s | %s | %.4f | %.2f | %.3f | %.1f |" % (
            r["set"], r["m"], r["n"], r["k"], r["order"], r["implementation"], float(r["median_ms"]),
            float(r["tflops"]), float(r["ratio_to_cublas"]), float(r["percent_of_peak"])))


if __name__ == "__main__":
    main()
