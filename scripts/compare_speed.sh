#!/usr/bin/env bash
# Did a change move tgemm's speed? Builds the benchmarks of two source trees (the working tree and an older one),
# then runs them alternately, old new old new ..., so that both see the same machine, clocks and temperature, and
# prints each shape's median milliseconds per round and the paired speed ratio (old ms / new ms: > 1 is faster).
#
# Usage: scripts/compare_speed.sh OLD_TREE [ROUNDS]
#   OLD_TREE  a source tree of the revision to compare against, made on a machine with git, e.g.
#             `git archive REV | tar -x -C scratch/old` (the device machine gets no .git: carry the folder).
#   ROUNDS    old/new pairs (default 2).
# Environment: FLOAT_SETS (tgemm_bench sets, default "square odd skinny layouts narrow thin unaligned"),
#   TENSOROP_RUNS (tgemm_bench_tensorop "set:types" pairs, default "square:f64 odd:f64 thin:bf16 few_tiles:bf16
#   square:bf16"; set either to an empty string to skip that benchmark), REPS (default 15), OUT (logs and CSVs, default ./out/compare_speed), BUILD_LIMIT (seconds per
#   build, default 600). The working tree builds in build-gpu (the gpu preset), the old one in build-old.
#   OLD_BIN, NEW_BIN: folders holding already built tgemm_bench (and tgemm_bench_tensorop, where TENSOROP_RUNS is not
#   empty) for the old and the new tree; with both set nothing is built (build them on a machine without a GPU and
#   carry them: the lent GPU's minutes then go to timing, not to compiling). OLD_TREE is then only a label.
# Needs a GPU, CMake, Ninja and Catch2 as scripts/gpu-check.sh does. Only the two benchmarks are built in each tree.
set -uo pipefail
cd "$(dirname "$0")/.."
old_tree=${1:?usage: scripts/compare_speed.sh OLD_TREE [ROUNDS]}
rounds=${2:-2}
OUT=${OUT:-$PWD/out/compare_speed}
mkdir -p "$OUT"
float_sets=${FLOAT_SETS-square odd skinny layouts narrow thin unaligned}
tensorop_runs=${TENSOROP_RUNS-square:f64 odd:f64 thin:bf16 few_tiles:bf16 square:bf16}
reps=${REPS:-15}
targets=(tgemm_bench tgemm_bench_tensorop)

build() {  # build dir, source dir
  local dir=$1 src=$2 name
  name=$(basename "$dir")
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTGEMM_BUILD_DOCS=OFF \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/usr" >"$OUT/configure-$name.log" 2>&1 || { tail -20 "$OUT/configure-$name.log"; return 1; }
  timeout "${BUILD_LIMIT:-600}" cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}" >"$OUT/build-$name.log" 2>&1 ||
    { grep -E "error|Error" "$OUT/build-$name.log" | head -30; tail -5 "$OUT/build-$name.log"; return 1; }
}

start=$SECONDS
new_bin=build-gpu/bench old_bin=build-old/bench
if [[ -n ${OLD_BIN:-} && -n ${NEW_BIN:-} ]]; then
  new_bin=$NEW_BIN old_bin=$OLD_BIN
  echo "prebuilt: old $old_bin, new $new_bin"
else
  build build-gpu . || exit 1
  build build-old "$old_tree" || exit 1
  echo "built both in $((SECONDS - start)) s"
fi
status=0
for ((round = 1; round <= rounds; ++round)); do
  for side in old new; do
    bin=$new_bin; [[ $side == old ]] && bin=$old_bin
    for set in $float_sets; do
      to="$OUT/$side$round/float-$set"; mkdir -p "$to"
      "$bin/tgemm_bench" --set "$set" --reps "$reps" --out "$to" >"$to/log.txt" 2>&1 ||
        { echo "tgemm_bench --set $set ($side) failed: $to/log.txt"; status=1; }
    done
    for run in $tensorop_runs; do
      to="$OUT/$side$round/tensorop-${run/:/-}"; mkdir -p "$to"
      "$bin/tgemm_bench_tensorop" --set "${run%%:*}" --types "${run##*:}" --reps "$reps" --out "$to" >"$to/log.txt" 2>&1 ||
        { echo "tgemm_bench_tensorop --set ${run%%:*} --types ${run##*:} ($side) failed: $to/log.txt"; status=1; }
    done
  done
  echo "round $round done at $((SECONDS - start)) s"
done
python3 scripts/compare_speed.py "$OUT" "$rounds" | tee "$OUT/compare.txt"
exit $status
