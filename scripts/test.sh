#!/usr/bin/env bash
# Builds tgemm and runs its tests, fetching what they need first: the README's test command.
#   scripts/test.sh          the host tests; on a machine with an NVIDIA GPU, every test
#   scripts/test.sh --host   the host tests only
# Catch2 comes from the system (Debian/Ubuntu: installed with apt-get when missing, as root or through sudo) or from
# .deps/usr (scripts/fetch_deps.sh). Exits with ctest's status; a run that finds no tests fails.
set -euo pipefail
cd "$(dirname "$0")/.."

host_only=0
[[ ${1:-} == --host ]] && host_only=1

have_catch2() {
  [[ -d .deps/usr ]] && return 0
  dpkg -s catch2 >/dev/null 2>&1 && return 0
  compgen -G "/usr/lib/cmake/Catch2/Catch2Config.cmake" >/dev/null || compgen -G "/usr/local/lib/cmake/Catch2/*" >/dev/null
}
if ! have_catch2; then
  if command -v apt-get >/dev/null; then
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
    echo "== installing Catch2 (apt-get install catch2)"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends catch2
  else
    echo "scripts/test.sh: Catch2 is missing; install it (2.13 or 3.x) or run scripts/fetch_deps.sh" >&2
    exit 1
  fi
fi

gpu=0
if [[ $host_only -eq 0 ]] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then gpu=1; fi

prefix=()
[[ -d .deps/usr ]] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/usr")
cmake --preset default "${prefix[@]}"
if [[ $gpu -eq 1 ]]; then
  cmake --build --preset default -j"$(nproc)"
  labels=()
  [[ $(nvidia-smi -L | wc -l) -lt 2 ]] && labels=(-LE multi_gpu)  # two-GPU tests need two GPUs
  ctest --test-dir build --output-on-failure --no-tests=error "${labels[@]}"
else
  cmake --build --preset default -j"$(nproc)" --target tgemm_host_test_targets
  ctest --preset host
fi
