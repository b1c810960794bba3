#!/usr/bin/env bash
# Configures and builds armci-x out of tree in ${ARMCIX_BUILD:-<repo>/build}.  Extra arguments go to
# configure (e.g. --enable-sanitizers).  Prints the build directory on the last line.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${ARMCIX_BUILD:-$repo/build}"
[ -x "$repo/configure" ] || (cd "$repo" && ./autogen.sh >/dev/null)
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "${ARMCIX_RECONFIGURE:-0}" = 1 ] || [ $# -gt 0 ]; then
  "$repo/configure" --enable-werror "$@" >configure.out 2>&1 || { tail -30 configure.out; exit 1; }
fi
make -j"$(nproc)" >make.out 2>&1 || { grep -E "error|Error" -A3 make.out | head -60; exit 1; }
make -j"$(nproc)" check-programs >>make.out 2>&1 || { grep -E "error|Error" -A3 make.out | head -60; exit 1; }
echo "$build"
