#!/usr/bin/env bash
# compute-sanitizer over tgemm's kernels: memcheck, racecheck, synccheck and initcheck, each with
# --error-exitcode 1, on a representative subset of the GPU tests chosen to stay small (sanitizers run kernels
# 10-100x slower; on an H200 the whole script took 58 s with SANITIZE_CASES=24, racecheck being half of it, so
# about 2 minutes with the default 48):
#   - the differential test in its small mode: every policy through launch<P>() and the dispatcher tgemm::gemm()
#     (its aligned, scalar-load, narrow, split-K and repacking paths), both orders, all op pairs, padded leading
#     dimensions, offset pointers, alpha/beta in {0, 1, -1, random}, k = 0, null A/B; compared with the float64
#     host reference (cuBLAS stays out of the sanitized process);
#   - the tensor-core kernels ([sanitize] of tgemm_gpu_tensorop_tests, every tool): bf16, fp16, TF32 and 3xTF32
#     through tgemm::gemm(), ragged tiles, every op pair, beta = 0 on a NaN C, misaligned operands (repacked);
#   - the Hopper kernels ([sanitize] of tgemm_gpu_wgmma_tests, every tool, on an sm_90 GPU with an sm_90a build):
#     every policy (the ping-pong tile's two consumers taking turns included), every op pair, three persistent
#     blocks walking several tiles each, ragged edges, beta = 0 on a NaN C and beta != 0; tiles in clusters of two
#     (B multicast to both blocks, stages released by the consumers of both), two persistent clusters;
#   - strided batches ([sanitize] of tgemm_gpu_batched_tests, every tool): products together in one grid (vector and
#     scalar loads; the products tile for products of at most 32 x 32, a fused epilogue too; the Hopper kernel's large,
#     smaller and batch tiles, C through TMA stores, plain and fused), product by product (split k, realigned copies),
#     float and 16-bit, C = beta C;
#   - the GEMV kernels ([sanitize] of tgemm_gpu_gemv_tests, every tool): along k and along n, one vector and several,
#     a partial last vector of k, split k with its reduction, a batch in one grid;
#   - the fused epilogues ([sanitize] of tgemm_gpu_epilogue_tests, every tool): tiles with a separate D, split k with
#     the reduction applying the epilogue, GEMV, a batch in one grid, the Hopper kernel (its small tile, and the
#     ping-pong tile that runs the large tile's fused calls, several tiles per consumer, and, where the table's
#     wgmma_fused_pingpong_max_k is finite, the cooperative tile that runs those deeper); float and bfloat16;
#   - pointer arrays and device-side group sizes ([sanitize] of tgemm_gpu_indirect_tests, every tool): ragged tiles,
#     the products tile, a misaligned product (the direct loop), a null C skipped, experts with an empty group and
#     k = 0;
#   - user epilogue operations ([sanitize] of tgemm_gpu_user_epilogue_tests, every tool): a __device__ lambda reading
#     a captured device vector of C's extent, on a shape no tile divides (the operation must see elements inside C
#     only), with and without the caller's workspace;
#   - host-side groups ([sanitize] of tgemm_gpu_grouped_tests, every tool): the grouped Hopper kernel's two
#     persistent blocks walking three bf16 groups' tiles (on an sm_90 GPU with an sm_90a build);
#   - [initcheck] (memcheck and initcheck): gemm() and every launch<P>() with beta = 0 on a C straight from
#     cudaMalloc, never written, so initcheck proves that beta = 0 never reads C (and that tgemm's scratch memory
#     is written before it is read); also k = 0 and alpha = 0 with beta = 0.
#
# Usage: scripts/sanitize.sh [build-dir]    (default build-gpu; the tests must be built:
#          cmake --build build-gpu --target tgemm_reliability_differential tgemm_reliability_gpu_tests
#          tgemm_gpu_tensorop_tests tgemm_gpu_wgmma_tests tgemm_gpu_batched_tests
#          tgemm_gpu_gemv_tests tgemm_gpu_epilogue_tests tgemm_gpu_indirect_tests tgemm_gpu_user_epilogue_tests
#          tgemm_gpu_grouped_tests)
# Environment: OUT (log folder, default ./out), SANITIZE_TOOLS (default "memcheck racecheck synccheck initcheck"),
#              SANITIZE_CASES (differential cases per tool, default 48), SANITIZE_SEED (default 1, printed).
# Exit status: 0 when every tool reported nothing, 1 otherwise (or when something is missing).
# Run it alone on the GPU: beside ctest, the gpu.execution.pressure tests fill the device to a few MiB, and tgemm then
# refuses to load kernels (out_of_memory), which fails the sanitized tests for a reason of their neighbour's.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
OUT=${OUT:-out}
mkdir -p "$OUT"
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
cases=${SANITIZE_CASES:-48}
seed=${SANITIZE_SEED:-1}

sanitizer=$(command -v compute-sanitizer || true)
[[ -z $sanitizer && -x /usr/local/cuda/bin/compute-sanitizer ]] && sanitizer=/usr/local/cuda/bin/compute-sanitizer
if [[ -z $sanitizer ]]; then
  echo "sanitize.sh: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2
  exit 1
fi
differential=$build/test/reliability/tgemm_reliability_differential
gpu_tests=$build/test/reliability/tgemm_reliability_gpu_tests
tensorop_tests=$build/test/gpu/tgemm_gpu_tensorop_tests
wgmma_tests=$build/test/gpu/tgemm_gpu_wgmma_tests
batched_tests=$build/test/gpu/tgemm_gpu_batched_tests
gemv_tests=$build/test/gpu/tgemm_gpu_gemv_tests
epilogue_tests=$build/test/gpu/tgemm_gpu_epilogue_tests
indirect_tests=$build/test/gpu/tgemm_gpu_indirect_tests
user_tests=$build/test/gpu/tgemm_gpu_user_epilogue_tests
grouped_tests=$build/test/gpu/tgemm_gpu_grouped_tests
for x in "$differential" "$gpu_tests" "$tensorop_tests" "$wgmma_tests" "$batched_tests" "$gemv_tests" "$epilogue_tests" \
  "$indirect_tests" "$user_tests" "$grouped_tests"; do
  if [[ ! -x $x ]]; then
    echo "sanitize.sh: $x is missing; build it first:" >&2
    echo "  cmake --build $build --target tgemm_reliability_differential tgemm_reliability_gpu_tests tgemm_gpu_tensorop_tests tgemm_gpu_wgmma_tests tgemm_gpu_batched_tests tgemm_gpu_gemv_tests tgemm_gpu_epilogue_tests tgemm_gpu_indirect_tests tgemm_gpu_user_epilogue_tests tgemm_gpu_grouped_tests" >&2
    exit 1
  fi
done

status=0
start=$SECONDS
# run NAME TOOL COMMAND...: one sanitized process, its log in $OUT/sanitize-TOOL-NAME.log.
run() {
  local name=$1 tool=$2
  shift 2
  local log=$OUT/sanitize-$tool-$name.log t0=$SECONDS
  "$sanitizer" --tool "$tool" --error-exitcode 1 --print-limit 20 "$@" >"$log" 2>&1
  local rc=$?
  if ((rc == 0)); then
    echo "$tool $name: clean ($((SECONDS - t0)) s) $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" || true)"
  else
    echo "$tool $name: FAILED (exit $rc, $((SECONDS - t0)) s), see $log"
    # Every report's first line (the tool's lines that start right after "========= "; the stack frames below them are
    # indented), then each failed test assertion with the lines Catch2 prints after it (its expansion and messages).
    { grep -E '^========= [^ ]' "$log" | grep -v 'COMPUTE-SANITIZER' | head -30
      grep -E -A 8 'FAILED:' "$log" | head -40; } | grep . || tail -20 "$log"
    status=1
  fi
}

echo "compute-sanitizer: $("$sanitizer" --version | tail -1); tools: $tools; differential: $cases cases, seed $seed"
for tool in $tools; do
  run differential "$tool" "$differential" --small --no-cublas --seed "$seed" --cases "$cases"
  if [[ $tool == memcheck || $tool == initcheck ]]; then
    run initcheck-test "$tool" "$gpu_tests" "[initcheck]"
  fi
  run tensorop "$tool" "$tensorop_tests" "[sanitize]"
  run wgmma "$tool" "$wgmma_tests" "[sanitize]"
  run batched "$tool" "$batched_tests" "[sanitize]"
  run gemv "$tool" "$gemv_tests" "[sanitize]"
  run epilogue "$tool" "$epilogue_tests" "[sanitize]"
  run indirect "$tool" "$indirect_tests" "[sanitize]"
  run user-epilogue "$tool" "$user_tests" "[sanitize]"
  run grouped "$tool" "$grouped_tests" "[sanitize]"
done
echo "sanitize.sh: $((SECONDS - start)) s, status $status (logs in $OUT/sanitize-*.log)"
exit $status
