#!/usr/bin/env bash
# The whole GPU pass in one go, for the lent H200 (or any CUDA machine): build, every test, compute-sanitizer,
# the demo and tutorials, the benchmark. Logs go to $OUT (default ./out).
# Usage: scripts/gpu-check.sh [build] [test] [demo] [bench] [sanitize]   (no argument: all, in that order).
# Needs Catch2: installed, or unpacked into .deps/usr by scripts/fetch_deps.sh (the gpu preset looks there).
# TGEMM_COMMIT names the commit in the log (the device machine gets no .git). The exit status is 1 when any step
# failed: ctest's own status for the tests, each program's for the rest.
# Where one command may run 600 s (the lent GPU), the whole pass does not fit one: on an H100 on 2026-12-05 the build
# took 296 s and the suite (-j10) did not finish in the 300 s left. Run `build` in one command and `test` in the next
# while the machine is still warm (build-gpu/ stays there between commands), then `sanitize` (about 190 s) alone.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
build=build-gpu  # the gpu preset's binary directory
steps=("$@")
((${#steps[@]})) || steps=(build test demo bench sanitize)
status=0
has() { [[ " ${steps[*]} " == *" $1 "* ]]; }
step() { echo; echo "=== $* ($(date +%T))"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)

if has build; then
  step "configure + build (preset gpu: sm_90a)"
  cmake --preset gpu >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  # A watchdog (BUILD_LIMIT seconds, default 900): a compile that never ends is reported with the processes still
  # running, not left to eat the device time (cudafe++ once never finished a test file with Catch2 3.4).
  cmake --build --preset gpu -j"$(nproc)" >"$OUT/build.log" 2>&1 &
  builder=$!
  build_start=$SECONDS
  while kill -0 "$builder" 2>/dev/null && ((SECONDS - build_start < ${BUILD_LIMIT:-900})); do sleep 5; done
  if kill -0 "$builder" 2>/dev/null; then
    echo "build still running after ${BUILD_LIMIT:-900} s; the oldest compiler processes:"
    ps -eo etimes,pcpu,args --sort=-etimes | grep -E "cudafe|cicc|ptxas|cc1plus|nvlink" | grep -v grep | cut -c1-200 | head
    tail -3 "$OUT/build.log"
    pkill -P "$builder"; kill "$builder" 2>/dev/null
    exit 1
  fi
  wait "$builder" || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
  echo "built: ${TGEMM_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
fi

if has test; then
  step "ctest (every label$([[ $gpus -lt 2 ]] && echo ", but multi_gpu: $gpus GPU"))"
  exclude=()
  [[ $gpus -lt 2 ]] && exclude=(-LE multi_gpu)
  ctest --preset gpu "${exclude[@]}" >"$OUT/ctest.txt" 2>&1
  rc=$?
  tail -25 "$OUT/ctest.txt"
  ((rc == 0)) || status=1
fi

if has demo; then
  step "demo"
  for x in "$build"/examples/tgemm_demo "$build"/examples/tgemm_custom_epilogue "$build"/examples/tgemm_custom_epilogue_bf16 \
           "$build"/examples/tgemm_user_epilogue "$build"/examples/tgemm_batched_attention "$build"/examples/tgemm_fused_mlp \
           "$build"/examples/tgemm_experts_layer "$build"/examples/tgemm_experts_device_sizes \
           "$build"/examples/tgemm_paged_scores "$build"/examples/tgemm_tutorial_*; do
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
