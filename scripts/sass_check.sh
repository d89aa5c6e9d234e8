#!/usr/bin/env bash
# What instructions do tgemm's compiled kernels run? Reads the sm_90a (default) SASS of the compiled library (or any
# object, archive or executable) and checks, kernel by kernel:
#   - every Hopper kernel (gemm_tma_wgmma) issues HGMMA (wgmma) and touches no local memory (LDL/STL: spills);
#   - every kernel of a tensor-core policy (gemm_kernel / gemm_indirect_kernel over a tensorop table or
#     tensorop_policy) issues HMMA (half, bf16, TF32 mma.sync) or DMMA (double) and touches no local memory;
#   - the other kernels (strict FP32 SIMT, GEMV, repacking, split-K reductions) are counted, local memory included,
#     but not judged: a fused SIMT epilogue may keep a small array on the stack.
# Prints one line per kernel family and instruction, and exits 1 on the first broken rule.
# Usage: scripts/sass_check.sh [FILE] [ARCH]   (FILE default build/libtgemm_compiled.a, ARCH default 90a)
# Needs cuobjdump (CUDA toolkit, or pip's nvidia-cuda-cuobjdump) and c++filt; no GPU.
set -euo pipefail
file=${1:-build/libtgemm_compiled.a}
arch=${2:-90a}
command -v cuobjdump > /dev/null || { echo "sass_check: cuobjdump not found" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cuobjdump -sass -arch "sm_$arch" "$file" > "$work/sass"
python3 - "$work/sass" "$arch" <<'PY'
import collections, re, subprocess, sys

path, arch = sys.argv[1], sys.argv[2]
kernels = collections.OrderedDict()  # mangled name -> instruction counts
name = None
for line in open(path):
    m = re.match(r'\s*Function : (\S+)', line)
    if m:
        name = m.group(1)
        kernels.setdefault(name, collections.Counter())
        continue
    m = re.match(r'\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.\S+)?', line)
    if m and name:
        kernels[name][m.group(1)] += 1
if not kernels:
    sys.exit(f"sass_check: no sm_{arch} kernels found")
names = list(kernels)
demangled = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.split('\n')

def family(pretty):
    if 'gemm_tma_wgmma' in pretty: return 'hopper'
    if 'gemm_kernel' in pretty or 'gemm_indirect_kernel' in pretty:
        if 'tuning::tensorop_f64' in pretty or 'tensorop_policy<double' in pretty: return 'tensorop_f64'
        if 'tuning::tensorop_' in pretty or 'tensorop_policy' in pretty: return 'tensorop'
        return 'simt'
    return 'other'

need = {'hopper': 'HGMMA', 'tensorop': 'HMMA', 'tensorop_f64': 'DMMA'}
summary = collections.defaultdict(lambda: collections.Counter())
failures = []
for mangled, pretty in zip(names, demangled):
    c, f = kernels[mangled], family(pretty)
    local = c['LDL'] + c['STL']
    s = summary[f]
    s['kernels'] += 1
    for op in ('HGMMA', 'HMMA', 'DMMA', 'FFMA', 'LDL', 'STL'):
        s[op] += c[op]
    if f in need and c[need[f]] == 0:
        s['without ' + need[f]] += 1
        failures.append(f'{f} kernel without {need[f]}: {pretty[:200]}')
    if local:
        s['with local memory'] += 1
        if f in need: failures.append(f'{f} kernel with {local} local-memory instructions: {pretty[:200]}')
print(f'sm_{arch}: {len(names)} kernels')
print(f'{"family":<14}{"kernels":>8}{"HGMMA":>9}{"HMMA":>9}{"DMMA":>9}{"FFMA":>10}{"LDL+STL":>9}  broken rules')
for f in ('hopper', 'tensorop', 'tensorop_f64', 'simt', 'other'):
    s = summary.get(f)
    if not s: continue
    broken = ', '.join(f'{v} {k}' for k, v in s.items() if k.startswith('with')) or 'none'
    if f not in need: broken = '(not judged) ' + broken
    print(f'{f:<14}{s["kernels"]:>8}{s["HGMMA"]:>9}{s["HMMA"]:>9}{s["DMMA"]:>9}{s["FFMA"]:>10}'
          f'{s["LDL"] + s["STL"]:>9}  {broken}')
for line in failures[:20]:
    print('FAIL', line)
sys.exit(1 if failures else 0)
PY
