#!/usr/bin/env bash
# What instructions do tgemm's compiled kernels run? Reads the sm_90a (default) SASS of the compiled library (or any
# object, archive or executable), sorts the kernels into families and counts their tensor-core, FMA and
# local-memory instructions. It fails (exit 1) where:
#   - a Hopper kernel (gemm_tma_wgmma) issues no HGMMA (wgmma), or touches local memory (LDL/STL);
#   - a kernel of a tensor-core policy (gemm_kernel / gemm_indirect_kernel over a tensorop table or tensorop_policy)
#     issues no HMMA (half, bf16, TF32 mma.sync) or DMMA (double).
# Local memory in the mma.sync kernels is counted, plain and fused apart, and listed, not judged: the SASS cannot
# tell a spill from a small array on the stack (a fused epilogue's per-row terms), which `nvcc -Xptxas -v` on the
# same source can (docs/profiling.md, "Which instructions do the kernels run?"). The SIMT, GEMV, copy and reduction
# kernels are counted only.
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
        fused = re.search(r', (true|false), tgemm::device::', pretty)
        suffix = ' fused' if fused and fused.group(1) == 'true' else ''
        if 'tuning::tensorop_f64' in pretty or 'tensorop_policy<double' in pretty: return 'mma f64' + suffix
        if 'tuning::tensorop_' in pretty or 'tensorop_policy' in pretty: return 'mma' + suffix
        return 'simt' + suffix
    return 'other'

def needs(f):
    return {'hopper': 'HGMMA', 'mma': 'HMMA', 'mma f64': 'DMMA'}.get(f.replace(' fused', ''))

summary = collections.defaultdict(collections.Counter)
failures, local_listed = [], []
for mangled, pretty in zip(names, demangled):
    c, f = kernels[mangled], family(pretty)
    local = c['LDL'] + c['STL']
    s = summary[f]
    s['kernels'] += 1
    for op in ('HGMMA', 'HMMA', 'DMMA', 'FFMA', 'LDL', 'STL'):
        s[op] += c[op]
    need = needs(f)
    if need and c[need] == 0:
        failures.append(f'{f} kernel without {need}: {pretty[:220]}')
    if local:
        s['local'] += 1
        if f == 'hopper': failures.append(f'hopper kernel with {local} local-memory instructions: {pretty[:220]}')
        elif f.startswith('mma') and not f.endswith('fused'): local_listed.append(f'{local:>4} {pretty[:220]}')
print(f'sm_{arch}: {len(names)} kernels')
print(f'{"family":<14}{"kernels":>8}{"HGMMA":>8}{"HMMA":>8}{"DMMA":>8}{"FFMA":>9}{"LDL+STL":>9}{"kernels with local":>20}')
for f in ('hopper', 'mma', 'mma fused', 'mma f64', 'mma f64 fused', 'simt', 'simt fused', 'other'):
    s = summary.get(f)
    if not s: continue
    print(f'{f:<14}{s["kernels"]:>8}{s["HGMMA"]:>8}{s["HMMA"]:>8}{s["DMMA"]:>8}{s["FFMA"]:>9}'
          f'{s["LDL"] + s["STL"]:>9}{s["local"]:>20}')
if local_listed:
    print('unfused mma.sync kernels with local memory (LDL+STL, kernel):')
    for line in local_listed: print(line)
for line in failures[:20]:
    print('FAIL', line)
print('sass_check:', f'{len(failures)} broken rules' if failures else 'every Hopper kernel issues HGMMA with no local '
      'memory; every mma.sync kernel issues HMMA or DMMA')
sys.exit(1 if failures else 0)
PY
