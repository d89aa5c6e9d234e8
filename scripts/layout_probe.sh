#!/usr/bin/env bash
# bench/layout_probe.cu built against two include trees and run old, new, old, new, old, new: the float tiles' kernels
# before and after a change to their loads, shape by shape and op pair by op pair, with each case's old/new time ratio
# and whether the two trees' results agree to the last bit (they do where their plans agree).
# Usage: scripts/layout_probe.sh OLD_INCLUDE [REPS]   (e.g. after `git archive REV include | tar -x -C old`:
#        old/include; the new tree is this checkout's include/). Needs nvcc and an sm_90 GPU (the probe binaries can
#        also be built elsewhere: PROBE_OLD and PROBE_NEW name them). Writes $OUT/layout_probe_{old,new}{1,2,3}.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
old=$1 reps=${2:-40}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --split-compile=0 -Itest/support)
probe_old=${PROBE_OLD:-$work/old} probe_new=${PROBE_NEW:-$work/new}
[[ -n ${PROBE_OLD:-} ]] || nvcc "${flags[@]}" -isystem "$old" bench/layout_probe.cu -o "$probe_old" &
[[ -n ${PROBE_NEW:-} ]] || nvcc "${flags[@]}" -isystem include bench/layout_probe.cu -o "$probe_new" &
wait
for round in 1 2 3; do
  "$probe_old" "$reps" > "$OUT/layout_probe_old$round.txt"
  "$probe_new" "$reps" > "$OUT/layout_probe_new$round.txt"
done
# Per case: old and new medians of the three rounds and each round's new/old time, single calls and batched; the
# host's time per call; whether C agreed in every round.
python3 - "$OUT" <<'PY'
import statistics, sys
out = sys.argv[1]
rows = {}
for r in (1, 2, 3):
    for tree in ("old", "new"):
        for line in open(f"{out}/layout_probe_{tree}{r}.txt"):
            f = line.split()
            rows.setdefault((f[0], f[1]), {}).setdefault(tree, []).append((float(f[2]), f[7], float(f[9]), float(f[12])))
print("case  single calls: old, new ms, new/old per round | batched: old, new ms, new/old per round | host us old, new")
for (shape, ops), d in rows.items():
    def col(i, tree): return [x[i] for x in d[tree]]
    same = all(x[1] == y[1] for x, y in zip(d["old"], d["new"]))
    line = f"{shape:20s} {ops}"
    for i in (0, 2):
        old, new = col(i, "old"), col(i, "new")
        ratios = " ".join("%.3f" % (n / o) for o, n in zip(old, new))
        line += f" | {statistics.median(old):.4f} {statistics.median(new):.4f} {ratios}"
    line += f" | {statistics.median(col(3, 'old')):.1f} {statistics.median(col(3, 'new')):.1f}"
    print(line + (" | same C" if same else " | C differs"))
PY
