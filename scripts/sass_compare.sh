#!/usr/bin/env bash
# Does a change move the code of tgemm::gemm()'s kernels? Builds the same gemm() caller against include/ of two
# revisions for one architecture (default sm_90a) and compares the SASS of every dispatch kernel, constant-bank
# offsets masked. ptxas can reschedule a main loop after an unrelated change in the kernel's setup (commit 0357007
# did, and cost 2 % at 4096^3), so "IDENTICAL" here means the kernel's speed cannot have moved.
# Usage: scripts/sass_compare.sh REV_A REV_B [ARCH]      (REV: any git revision, or WORKTREE for the working tree)
# Needs nvcc and cuobjdump; no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${3:-90a}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/caller.cu" <<'CU'
#include <tgemm/gemm.cuh>
tgemm::status call(const float* a, const float* b, float* c, int64_t n) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
CU
for side in A B; do
  rev=$1; [[ $side == B ]] && rev=$2
  mkdir -p "$work/$side"
  if [[ $rev == WORKTREE ]]; then cp -r include "$work/$side/"; else git archive "$rev" include | tar -x -C "$work/$side"; fi
  nvcc -std=c++17 -O3 -I"$work/$side/include" -gencode "arch=compute_$arch,code=sm_$arch" -cubin "$work/caller.cu" \
    -o "$work/$side.cubin"
  cuobjdump -sass "$work/$side.cubin" > "$work/$side.sass"
done
python3 - "$work/A.sass" "$work/B.sass" <<'PY'
import re, subprocess, sys
def kernels(path):
    parts = open(path).read().split('Function : ')[1:]
    out = {}
    for part in parts:
        name = part.split('\n', 1)[0].strip()
        lines = [re.sub(r'/\*[0-9a-f]+\*/', '', l).strip() for l in part.split('\n') if re.match(r'\s+/\*[0-9a-f]{4,6}\*/', l)]
        out[name] = [re.sub(r'c\[0x0\]\[0x[0-9a-f]+\]', 'c[.]', re.sub(r'\s*;.*', '', l)) for l in lines]
    return out
a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
names = sorted(set(a) | set(b))
pretty = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.split('\n')
for name, readable in zip(names, pretty):
    short = re.sub(r'tgemm::|\(tgemm::op\)|, tgemm::device::.*', '', readable)[:90]
    if name not in a: verdict = 'only in B'
    elif name not in b: verdict = 'only in A'
    elif a[name] == b[name]: verdict = 'IDENTICAL'
    else: verdict = 'differs (%d vs %d instructions)' % (len(a[name]), len(b[name]))
    print('%-92s %s' % (short, verdict))
PY
