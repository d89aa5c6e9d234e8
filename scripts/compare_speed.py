#!/usr/bin/env python3
"""The table of scripts/compare_speed.sh: compare_speed.py DIR ROUNDS.

DIR holds {old,new}{1..ROUNDS}/<run>/ folders, each with the CSV of one benchmark run (tgemm_bench's bench.csv or
tgemm_bench_tensorop's tensorop_results.csv). For every tgemm row found in all of them it prints the median ms of
each round and the paired speed ratio, old ms / new ms over the rounds' means (> 1: the new tree is faster), then
per run the smallest, largest and geometric-mean ratio."""
import csv
import glob
import math
import os
import statistics
import sys


def tgemm_times(folder):
    """{(set, m x n x k, order): median ms} of tgemm's rows in the folder's CSV."""
    times = {}
    for path in glob.glob(os.path.join(folder, "*.csv")):
        for row in csv.DictReader(open(path)):
            if row.get("group") == "dispatch":  # tgemm_bench: tgemm::gemm()
                key = (row["set"], f"{row['m']}x{row['n']}x{row['k']}", row["order"])
            elif row.get("implementation") == "tgemm" and "type" in row:  # tgemm_bench_tensorop
                key = (row["type"] + "/" + row["set"], row["mxnxk"], row["order_ops"])
            else:
                continue
            times[key] = float(row["median_ms"])
    return times


def main():
    root, rounds = sys.argv[1], int(sys.argv[2])
    runs = sorted({os.path.basename(p) for p in glob.glob(os.path.join(root, "old1", "*"))})
    everything = []
    for run in runs:
        old = [tgemm_times(os.path.join(root, f"old{r}", run)) for r in range(1, rounds + 1)]
        new = [tgemm_times(os.path.join(root, f"new{r}", run)) for r in range(1, rounds + 1)]
        keys = sorted(set.intersection(*(set(t) for t in old + new))) if old and new else []
        if not keys:
            print(f"# {run}: no shape measured in every round\n")
            continue
        print(f"# {run}")
        print(f"{'set':16s} {'m x n x k':20s} {'order':10s} {'old ms per round':>24s} {'new ms per round':>24s}  speed")
        ratios = []
        for key in keys:
            o = [t[key] for t in old]
            n = [t[key] for t in new]
            ratio = statistics.mean(o) / statistics.mean(n)
            ratios.append(ratio)
            print(f"{key[0]:16s} {key[1]:20s} {key[2]:10s} {'/'.join(f'{x:.4f}' for x in o):>24s} "
                  f"{'/'.join(f'{x:.4f}' for x in n):>24s}  {ratio:.3f}")
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"speed new/old: min {min(ratios):.3f} max {max(ratios):.3f} geomean {geo:.3f} (n={len(ratios)})\n")
        everything += ratios
    if everything:
        geo = math.exp(sum(map(math.log, everything)) / len(everything))
        print(f"all shapes: min {min(everything):.3f} max {max(everything):.3f} geomean {geo:.3f} (n={len(everything)})")


if __name__ == "__main__":
    main()
