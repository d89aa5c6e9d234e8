#!/usr/bin/env bash
# Nsight Compute report of one tgemm kernel launch, after the program's warm-up, with source correlation.
# Builds a Release tree with -lineinfo, profiles one launch with every section, and writes the report and a text
# summary to $OUT (default ./out). Correctness tools: scripts/sanitize.sh.
#
# Usage: scripts/profile.sh [program] [n] [kernel-regex]
#   program       an examples target (default tgemm_tutorial_08_library_vs_cublas)
#   n             its size argument (default 4096)
#   kernel-regex  which kernel to profile (default gemm_kernel: the kernel body behind tgemm::gemm() and launch<P>)
# Environment: BUILD_DIR (default build-profile), CUDA_ARCHS (default 90a), NCU_SET (default full),
#              NCU_SKIP (launches of that kernel to skip first, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
program=${1:-tgemm_tutorial_08_library_vs_cublas}
size=${2:-4096}
kernel=${3:-gemm_kernel}
build=${BUILD_DIR:-build-profile}
OUT=${OUT:-out}
mkdir -p "$OUT"

ncu=$(command -v ncu || true)
[[ -z $ncu && -x /usr/local/cuda/bin/ncu ]] && ncu=/usr/local/cuda/bin/ncu
[[ -n $ncu ]] || { echo "profile.sh: ncu (Nsight Compute) not found; it ships with the CUDA toolkit" >&2; exit 1; }

generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS=-lineinfo \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90a}" -DTGEMM_BUILD_TESTS=OFF -DTGEMM_BUILD_BENCH=OFF \
  -DTGEMM_BUILD_DOCS=OFF >"$OUT/profile-configure.log"
cmake --build "$build" --target "$program" >"$OUT/profile-build.log"

report=$OUT/profile-$program-$kernel
# --clock-control none: the GPU keeps its normal clocks, so durations compare with the program's own timings.
"$ncu" --kernel-name "regex:$kernel" --launch-skip "${NCU_SKIP:-2}" --launch-count 1 --set "${NCU_SET:-full}" \
  --import-source yes --clock-control none -f -o "$report" "$build/examples/$program" "$size" \
  >"$OUT/profile-run.log" 2>&1 || { tail -20 "$OUT/profile-run.log"; exit 1; }
"$ncu" --import "$report.ncu-rep" --page details >"$report.txt"
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy" \
  "$report.txt" || true
echo "profile.sh: report $report.ncu-rep, text $report.txt"
