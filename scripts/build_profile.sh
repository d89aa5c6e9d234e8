#!/usr/bin/env bash
# Where a build's compile time goes, per object and per target: the CI figures of docs/build_modes.md.
# Usage:
#   scripts/build_profile.sh record LOG COMPILER ARGS...   a compiler launcher: runs the compile, appends
#                                                           "start end object" to LOG
#   scripts/build_profile.sh summary LOG [N]               span, compiler time, how many compiles ran at once, the
#                                                           time per target and the N slowest objects (default 30)
# For example, a clean clone's CI build with every compile timed (CMake reads the launchers from the environment):
#   CMAKE_CUDA_COMPILER_LAUNCHER="$PWD/scripts/build_profile.sh;record;/tmp/times.log" \
#   CMAKE_CXX_COMPILER_LAUNCHER="$PWD/scripts/build_profile.sh;record;/tmp/times.log" bash .ci/run
#   scripts/build_profile.sh summary /tmp/times.log
set -uo pipefail
mode=${1:-}
log=${2:-}
if [[ -z $mode || -z $log ]]; then
  sed -n '2,11p' "$0" >&2
  exit 2
fi
case $mode in
  record)
    shift 2
    start=$(date +%s.%N)
    "$@"
    rc=$?
    end=$(date +%s.%N)
    out="" previous=""
    for arg in "$@"; do [[ $previous == -o ]] && out=$arg; previous=$arg; done
    echo "$start $end ${out:-?}" >> "$log"
    exit $rc
    ;;
  summary)
    top=${3:-30}
    [[ -s $log ]] || { echo "no compiles recorded in $log"; exit 1; }
    awk 'NF == 3 { n++; t = $2 - $1; cpu += t; if (n == 1 || $1 < a) a = $1; if (n == 1 || $2 > b) b = $2 }
         END { printf "%d compiles, span %.0f s, compiler time %.0f s\n", n, b - a, cpu }' "$log"
    # Seconds with k compiles running: the starts (+1) and ends (-1) in time order.
    awk 'NF == 3 { print $1, 1; print $2, -1 }' "$log" | sort -n |
      awk 'NR == 1 { prev = $1 } { at[cur] += $1 - prev; cur += $2; prev = $1 }
           END { printf "seconds with k compiles running:"; for (k = 0; k in at; k++) printf " %d: %.0f", k, at[k]; print "" }'
    echo "--- compiler time per target"
    awk 'NF == 3 { x = $3; sub(/\.dir\/.*/, "", x); sub(/.*\//, "", x); by[x] += $2 - $1 }
         END { for (x in by) printf "%8.1f %s\n", by[x], x }' "$log" | sort -rn
    echo "--- slowest objects"
    awk 'NF == 3 { x = $3; sub(/.*CMakeFiles\//, "", x); printf "%8.1f %s\n", $2 - $1, x }' "$log" | sort -rn |
      head -n "$top"
    ;;
  *)
    sed -n '2,11p' "$0" >&2
    exit 2
    ;;
esac
