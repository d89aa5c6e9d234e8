#!/usr/bin/env bash
# bench/user_op_probe.cu built against two include trees, run old, new, old, new: a user operation's paths before and
# after a change, each against the built-in epilogue in the same process (docs/performance.md, fused epilogues).
# Usage: scripts/user_op_probe.sh OLD_INCLUDE   (e.g. after `git archive REV include | tar -x -C old`: old/include;
#        the new tree is this checkout's include/). Needs nvcc and an sm_90 GPU; writes
#        $OUT/user_op_probe_{old,new}.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
old=$1
flags=(-std=c++17 -O3 --extended-lambda -gencode arch=compute_90a,code=sm_90a --split-compile=0 -Itest/support)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The lambda is tgemm_bench_epilogue's (bench/epilogue_user_op.cu), compiled against each tree too.
nvcc "${flags[@]}" -I"$old" bench/user_op_probe.cu bench/epilogue_user_op.cu -o "$work/old" &
nvcc "${flags[@]}" -Iinclude bench/user_op_probe.cu bench/epilogue_user_op.cu -o "$work/new" &
wait
for round in 1 2; do
  for tree in old new; do
    echo "== $tree (round $round)"
    "$work/$tree" | tee -a "$OUT/user_op_probe_$tree.txt"
  done
done
