#!/usr/bin/env bash
# The GPU suite built on a machine without a GPU, carried to one: device minutes go to running the tests, not to
# compiling them (the gpu preset's build takes about four minutes of a 16-core device machine, half an hour of a
# 2-core one, which costs nothing).
#
#   scripts/gpu-suite-pack.sh pack [BUILD_DIR] [PACK_DIR]    here: BUILD_DIR (default build-gpu, configured as the gpu
#       preset and built) -> PACK_DIR (default scratch/pack): suite.tar.xz (every test program, about 50 MB with xz -9),
#       ctest.tar (the CTestTestfile.cmake files) and paths (the build and source folders they name)
#   scripts/gpu-suite-pack.sh test [PACK_DIR]                 there: unpacks into build-gpu once (kept while the machine
#       stays warm), makes the folders the test files name point at build-gpu and this tree, then runs ctest on every
#       label but host and multi_gpu (the host tests compile with the build machine's tools: CI runs them)
#   scripts/gpu-suite-pack.sh sanitize [PACK_DIR]             there: scripts/sanitize.sh on the unpacked build
# Environment: OUT (logs, default ./out), CTEST_JOBS (default 4, as the gpu test preset).
# Pack from a clean tree: `paths` records `git describe` of the tree the build came from.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/gpu-suite-pack.sh pack|test|sanitize ...}

if [[ $mode == pack ]]; then
  build=$(cd "${2:-build-gpu}" && pwd) || exit 1
  pack=${3:-scratch/pack}
  mkdir -p "$pack"
  ninja -C "$build" -n 2>/dev/null | grep -q "no work to do" || { echo "$build is not up to date: build it first"; exit 1; }
  (cd "$build" && find test -maxdepth 2 -type f -executable | sort | tar cf - -T - | xz -9 -T1) >"$pack/suite.tar.xz" || exit 1
  (cd "$build" && find . -name CTestTestfile.cmake | tar cf - -T -) >"$pack/ctest.tar" || exit 1
  source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  printf 'build=%s\nsource=%s\nrevision=%s\n' "$build" "$source_dir" \
    "$(git -C "$source_dir" describe --always --dirty 2>/dev/null || echo unknown)" >"$pack/paths"
  du -b "$pack/suite.tar.xz" "$pack/ctest.tar" | awk '{printf "%s %.1f MB\n", $2, $1 / 1e6}'
  cat "$pack/paths"
  exit 0
fi

pack=${2:-scratch/pack}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
[[ -f $pack/paths ]] || { echo "no $pack/paths: pack first, and carry $pack"; exit 1; }
recorded_build=$(sed -n 's/^build=//p' "$pack/paths")
recorded_source=$(sed -n 's/^source=//p' "$pack/paths")
echo "suite of $(sed -n 's/^revision=//p' "$pack/paths"), built in $recorded_build"
start=$SECONDS
if [[ ! -f build-gpu/.unpacked || $pack/suite.tar.xz -nt build-gpu/.unpacked ]]; then
  rm -rf build-gpu && mkdir -p build-gpu
  xz -dc "$pack/suite.tar.xz" | tar xf - -C build-gpu && tar xf "$pack/ctest.tar" -C build-gpu || exit 1
  touch build-gpu/.unpacked
  echo "unpacked in $((SECONDS - start)) s"
fi
# The test files name the build machine's folders: point them here (never over a real folder).
link() {  # recorded path, local path
  [[ $1 == "$2" ]] && return 0
  if [[ -L $1 ]]; then rm "$1"; elif [[ -e $1 ]]; then echo "$1 exists here and is not a link: not replaced"; return 1; fi
  mkdir -p "$(dirname "$1")" && ln -s "$2" "$1"
}
link "$recorded_build" "$PWD/build-gpu" || exit 1
link "$recorded_source" "$PWD" || exit 1

case $mode in
  test)
    ctest --test-dir "$recorded_build" -LE "host|multi_gpu" -j"${CTEST_JOBS:-4}" --timeout 900 --output-on-failure \
      >"$OUT/ctest.txt" 2>&1
    rc=$?
    grep -E "tests passed|\(Failed\)|\*\*\*|Timeout" "$OUT/ctest.txt" | tail -25
    echo "ctest status $rc after $((SECONDS - start)) s"
    exit $rc
    ;;
  sanitize)
    OUT=$OUT scripts/sanitize.sh "$recorded_build" >"$OUT/sanitize.log" 2>&1
    rc=$?
    echo "$(grep -c ': clean (' "$OUT/sanitize.log") runs clean"
    grep -E "^compute-sanitizer|FAILED|^sanitize.sh:" "$OUT/sanitize.log" | tail -15
    echo "sanitize status $rc after $((SECONDS - start)) s"
    exit $rc
    ;;
  *) echo "unknown mode $mode"; exit 1 ;;
esac
