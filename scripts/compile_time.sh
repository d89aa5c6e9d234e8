#!/usr/bin/env bash
# Compile time of a one-line translation unit that calls tgemm::gemm(), in both build modes, with nvcc --time's
# breakdown (cicc, ptxas, host compiler): the figures of docs/build_modes.md.
# Usage: scripts/compile_time.sh [REV]   (REV: a git revision to measure instead of the working tree; revisions
#        before the compiled mode existed are measured header-only only). Needs nvcc; no GPU. Run it on a quiet
#        machine: the timings are wall-clock seconds of one compile each.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -n ${1:-} ]]; then git archive "$1" include cmake | tar -x -C "$work"; include=$work/include; else include=$PWD/include; fi
cat > "$work/caller.cu" <<'CU'
#include <tgemm/gemm.cuh>
tgemm::status run(const float* a, const float* b, float* c, int n) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
CU
arch90=(-gencode arch=compute_90a,code=sm_90a)
arch8090=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a)
measure() {  # name source flags...
  local name=$1 source=$2
  shift 2
  rm -f "$work/$name.csv"
  local start=$(date +%s.%N)
  nvcc -std=c++17 -I"$include" "$@" --time "$work/$name.csv" -c "$source" -o "$work/$name.o"
  local end=$(date +%s.%N)
  python3 - "$work/$name.csv" "$name" "$start" "$end" <<'PY'
import csv, sys
path, name, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
cicc = ptxas = host = 0.0
for row in csv.reader(open(path)):
    if len(row) < 7 or not row[6].strip().replace('.', '', 1).isdigit(): continue
    phase, ms = row[1].strip(), float(row[6])
    if phase == 'cicc': cicc += ms
    elif phase == 'ptxas': ptxas += ms
    elif phase.startswith('gcc') or phase.startswith('cudafe'): host += ms
print('%-34s %7.1f s   cicc %5.1f s  ptxas %5.1f s  host (cudafe++, gcc) %4.1f s' % (name, end - start, cicc / 1e3, ptxas / 1e3, host / 1e3))
PY
}
echo "nvcc: $(nvcc --version | tail -2 | head -1); $(nproc) cores; include: ${1:-working tree}"
measure "header-only, sm_90a" "$work/caller.cu" "${arch90[@]}"
measure "header-only, 80;90a" "$work/caller.cu" "${arch8090[@]}"
# What the CMake target tgemm::tgemm adds (nvcc 11.8 and newer): the same kernels, compiled on every core.
measure "header-only, sm_90a, split-compile" "$work/caller.cu" --split-compile=0 "${arch90[@]}"
measure "header-only, 80;90a, split-compile" "$work/caller.cu" --split-compile=0 "${arch8090[@]}"
if [[ -f $include/tgemm/config.cuh ]]; then
  measure "compiled mode caller, sm_90a" "$work/caller.cu" -DTGEMM_COMPILED "${arch90[@]}"
  measure "compiled mode caller, 80;90a" "$work/caller.cu" -DTGEMM_COMPILED "${arch8090[@]}"
  src=$PWD/cmake/tgemm_compiled.cu
  [[ -n ${1:-} ]] && src=$work/cmake/tgemm_compiled.cu
  measure "compiled library (once), 80;90a" "$src" "${arch8090[@]}"
fi
