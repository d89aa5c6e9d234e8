#!/usr/bin/env bash
# The whole GPU pass in one go, for the lent H200 (or any CUDA machine): build, every test, compute-sanitizer,
# the demo and tutorials, the benchmark. Logs go to $OUT (default ./out).
# Usage: scripts/gpu-check.sh [build] [test] [demo] [bench] [sanitize]   (no argument: all, in that order).
# Needs Catch2 under .deps/usr (../shared/device/deps.sh) or installed. TGEMM_COMMIT names the commit in the log
# (the device machine gets no .git).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
build=${BUILD_DIR:-build-gpu}
archs=${CUDA_ARCHS:-90a}
steps=("$@")
((${#steps[@]})) || steps=(build test demo bench sanitize)
status=0
has() { [[ " ${steps[*]} " == *" $1 "* ]]; }
step() { echo; echo "=== $* ($(date +%T))"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"

if has build; then
  step "configure + build for $archs"
  generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/usr" -DTGEMM_BUILD_DOCS=OFF >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
  echo "built: ${TGEMM_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
fi

if has test; then
  step "ctest (all labels)"
  ctest --test-dir "$build" --output-on-failure -j4 --timeout 900 2>&1 | tee "$OUT/ctest.txt" | tail -25 || status=1
  grep -q "100% tests passed" "$OUT/ctest.txt" || status=1
fi

if has demo; then
  step "demo"
  for x in "$build"/examples/tgemm_demo "$build"/examples/tgemm_custom_epilogue "$build"/examples/tgemm_tutorial_*; do
    [[ -x $x ]] || { echo "missing $x"; status=1; continue; }
    "$x" 2>&1 | tee -a "$OUT/demo.txt" || status=1
  done
fi

if has bench; then
  step "bench"
  bench=$build/bench/tgemm_bench
  if [[ -x $bench ]]; then
    "$bench" --set "${BENCH_SET:-all}" --out "$OUT" 2>&1 | tee "$OUT/bench.txt" || status=1
    python3 scripts/plot_bench.py "$OUT/bench.csv" "$OUT/bench.png" || echo "(no plot: matplotlib missing?)"
  else
    echo "no benchmark built"; status=1
  fi
fi

if has sanitize; then
  step "scripts/sanitize.sh"
  OUT=$OUT scripts/sanitize.sh "$build" || status=1
fi

step "done: status $status"
exit $status
