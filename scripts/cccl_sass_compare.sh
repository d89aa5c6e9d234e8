#!/usr/bin/env bash
# Does CCCL's wrapper emit the same SASS as tgemm's inline PTX? Compiles bench/cccl_wrappers_probe.cu twice (tgemm's
# arch/ wrappers, then CCCL's cuda::ptx and cuda::memcpy_async) for one architecture and diffs each kernel's SASS,
# addresses stripped. Usage: scripts/cccl_sass_compare.sh [ARCH]  (default 90a; 90 or newer: the TMA kernel needs it).
# Needs nvcc and cuobjdump; no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-90a}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in tgemm cccl; do
  define=()
  [[ $side == cccl ]] && define=(-DUSE_CCCL)
  nvcc -std=c++17 -O3 -arch=sm_"$arch" -Iinclude "${define[@]}" -cubin -o "$work/$side.cubin" bench/cccl_wrappers_probe.cu
  cuobjdump -sass "$work/$side.cubin" | sed -nE 's@^\s+/\*[0-9a-f]+\*/\s*@@p; s@^\s+Function : (.*)@== \1@p' |
    sed -E 's@ +;.*@@; s@/\*[0-9a-f]+\*/@@g' >"$work/$side.sass"
done
status=0
for kernel in hopper copy; do
  extract() { awk -v k="$kernel" '/^== /{on = index($0, k) > 0; next} on' "$work/$1.sass"; }
  if diff <(extract tgemm) <(extract cccl) >"$work/$kernel.diff"; then
    echo "$kernel: IDENTICAL ($(extract tgemm | wc -l) instructions)"
  else
    echo "$kernel: DIFFERENT"; cat "$work/$kernel.diff"; status=1
  fi
done
exit $status
