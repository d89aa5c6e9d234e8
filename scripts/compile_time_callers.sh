#!/usr/bin/env bash
# One-line callers of tgemm::gemm() (float, bf16), gemm_strided_batched() (float) and both, compiled with the command
# CMake gives a tgemm::tgemm consumer (Release: -O3, sm_90a, --split-compile=0), the headers of OLD and of the working
# tree alternating, ROUNDS rounds: wall-clock seconds, then cicc / ptxas / host compiler (nvcc --time), and the
# functions in the object (cuobjdump, where it is installed). The figures of docs/build_modes.md's later sections.
# Usage: scripts/compile_time_callers.sh OLD [ROUNDS]   (OLD: a git revision). Needs nvcc; no GPU; a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 rounds=${2:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old"
git archive "$old" include | tar -x -C "$work/old"
cat > "$work/f32.cu" <<'CU'
#include <tgemm/gemm.cuh>
tgemm::status run(const float* a, const float* b, float* c, int n) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
CU
cat > "$work/bf16.cu" <<'CU'
#include <tgemm/gemm.cuh>
#include <cuda_bf16.h>
tgemm::status run(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int n) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
CU
cat > "$work/strided.cu" <<'CU'
#include <tgemm/gemm.cuh>
tgemm::status run(const float* a, const float* b, float* c, int n, int count) {
  return tgemm::gemm_strided_batched(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n,
                                     int64_t(n) * n, b, n, int64_t(n) * n, 0.0f, c, n, int64_t(n) * n, count);
}
CU
cat > "$work/both.cu" <<'CU'
#include <tgemm/gemm.cuh>
tgemm::status run(const float* a, const float* b, float* c, int n, int count) {
  if (count == 1)
    return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  return tgemm::gemm_strided_batched(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n,
                                     int64_t(n) * n, b, n, int64_t(n) * n, 0.0f, c, n, int64_t(n) * n, count);
}
CU
compile() {  # include source
  rm -f "$work/time.csv"
  local start=$(date +%s.%N)
  nvcc -forward-unknown-to-host-compiler -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA \
       -DTHRUST_HOST_SYSTEM=THRUST_HOST_SYSTEM_CPP -isystem "$1" -O3 -DNDEBUG \
       "--generate-code=arch=compute_90a,code=[compute_90a,sm_90a]" --split-compile=0 -x cu -c "$2" -o "$work/out.o" \
       --time "$work/time.csv"
  local end=$(date +%s.%N)
  local functions=?
  command -v cuobjdump > /dev/null && functions=$(cuobjdump -sass "$work/out.o" | grep -c "Function :")
  awk -F, -v wall="$(echo "$end - $start" | bc)" -v functions="$functions" '
    $2 ~ /cicc/ {c += $7} $2 ~ /ptxas/ {p += $7} $2 ~ /gcc \(compiling\)/ {h += $7}
    END {printf "%.1f s (cicc %.1f / ptxas %.1f / host %.1f), %s functions\n", wall, c / 1e3, p / 1e3, h / 1e3, functions}' \
    "$work/time.csv"
}
echo "nvcc: $(nvcc --version | tail -2 | head -1); $(nproc) cores; old: $old; new: the working tree"
for round in $(seq "$rounds"); do
  for caller in f32 bf16 strided both; do
    echo "$(date +%T) round $round $caller old: $(compile "$work/old/include" "$work/$caller.cu")"
    echo "$(date +%T) round $round $caller new: $(compile "$PWD/include" "$work/$caller.cu")"
  done
done
