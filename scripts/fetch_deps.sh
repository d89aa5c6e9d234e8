#!/usr/bin/env bash
# Unpacks Catch2 from Debian's package into .deps/usr, for a machine without a package registry (the lent GPU
# machine): run it where apt-get works, carry .deps, and configure with -DCMAKE_PREFIX_PATH=$PWD/.deps/usr (the gpu
# preset does).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs
cd .deps/debs
[[ -n $(ls /var/lib/apt/lists/ 2>/dev/null | grep -m1 Packages) ]] || apt-get update -qq
apt-get download catch2 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
ls ./*.deb >/dev/null
for f in ./*.deb; do dpkg -x "$f" ..; done
echo "unpacked into .deps/usr"
