#!/usr/bin/env bash
# Does a change move the code of tgemm::gemm()'s kernels? Builds the same gemm() caller against include/ of two
# revisions for one architecture (default sm_90a) and compares the SASS of every dispatch kernel, constant-bank
# offsets masked. Kernels are paired by (slot, op pair, padded), so revisions before the one kernel body (d7e9e64 and
# older: dispatch_gemm<Chain, pick_X, ...>) compare with later ones (gemm_kernel<tuned_policy<Table, slot>, ...>). ptxas can reschedule a main loop after an unrelated change in the kernel's setup (commit 0357007
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
SLOTS = ['general', 'general_tn', 'general_tt', 'medium', 'small', 'narrow_m', 'narrow_n', 'tiny_m', 'tiny_n',
         'unaligned']  # tuning/slots.cuh, in order
def key(readable):
    m = re.search(r'dispatch_gemm(_padded)?<[^,]*, tgemm::tuning::pick_(\w+), \(tgemm::op\)(\d+), \(tgemm::op\)(\d+)>', readable)
    if m: return '%s %s%s%s' % (m.group(2), m.group(3), m.group(4), ' padded' if m.group(1) else '')
    m = re.search(r'tuned_policy<[^,]*, \(tgemm::tuning::slot\)(\d+)>, \(tgemm::op\)(\d+), \(tgemm::op\)(\d+), (true|false)>', readable)
    if m: return '%s %s%s%s' % (SLOTS[int(m.group(1))], m.group(2), m.group(3), ' padded' if m.group(4) == 'true' else '')
    m = re.search(r'tgemm::kernel::(\w+)<([^>]*)>', readable)  # helper kernels: pack_operand's bool tells them apart
    if m: return m.group(1) + ('<%s>' % m.group(2).split(', ')[-1] if m.group(1) == 'pack_operand' else '')
    return readable[:60]
def kernels(path):
    parts = open(path).read().split('Function : ')[1:]
    names = [part.split('\n', 1)[0].strip() for part in parts]
    pretty = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.split('\n')
    out = {}
    for part, readable in zip(parts, pretty):
        lines = [re.sub(r'/\*[0-9a-f]+\*/', '', l).strip() for l in part.split('\n') if re.match(r'\s+/\*[0-9a-f]{4,6}\*/', l)]
        out[key(readable)] = [re.sub(r'c\[0x0\]\[0x[0-9a-f]+\]', 'c[.]', re.sub(r'\s*;.*', '', l)) for l in lines]
    return out
a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
for name in sorted(set(a) | set(b)):
    if name not in a: verdict = 'only in B'
    elif name not in b: verdict = 'only in A'
    elif a[name] == b[name]: verdict = 'IDENTICAL'
    elif sorted(a[name]) == sorted(b[name]): verdict = 'same instructions, %d reordered' % sum(x != y for x, y in zip(a[name], b[name]))
    else: verdict = 'differs (%d vs %d instructions)' % (len(a[name]), len(b[name]))
    print('%-40s %s' % (name, verdict))
PY
