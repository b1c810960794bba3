#!/usr/bin/env bash
# Configures and builds armci-x out of tree in ${ARMCIX_BUILD:-<repo>/build}.  Extra arguments go to
# configure (e.g. --enable-sanitizers).  Prints the build directory on the last line of standard output
# (callers take it with "| tail -n 1"); everything else, and above all why a step failed, goes to standard
# error, so that it reaches the user through such a pipe.  The whole output of each step stays in the build
# directory (autogen.out, configure.out, make.out).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${ARMCIX_BUILD:-$repo/build}"
# fail STEP LOG: the lines of LOG that say why STEP failed (compiler and linker errors with their context,
# else its end), on standard error.
fail() {
  local step="$1" log="$2"
  {
    echo "build.sh: $step failed in $build; the reason, from $log:"
    local why='error:|Error [0-9]|cannot find|undefined reference|No such file|No rule to make'
    if [ "$step" = make ] || [ "$step" = "make check-programs" ] && grep -qE "$why" "$log"; then
      grep -E -B2 -A3 "$why" "$log" | head -n 60
    else
      tail -n 30 "$log"
    fi
    echo "build.sh: $step failed (whole output: $log)"
  } | sed 's/^/  /' >&2
  exit 1
}
mkdir -p "$build"
if [ ! -x "$repo/configure" ]; then
  (cd "$repo" && ./autogen.sh) >"$build/autogen.out" 2>&1 || fail "autogen.sh" "$build/autogen.out"
fi
cd "$build"
if [ ! -f Makefile ] || [ "${ARMCIX_RECONFIGURE:-0}" = 1 ] || [ $# -gt 0 ]; then
  "$repo/configure" --enable-werror "$@" >configure.out 2>&1 || fail "configure $*" "$build/configure.out"
fi
make -j"$(nproc)" >make.out 2>&1 || fail "make" "$build/make.out"
# ARMCIX_BUILD_PROGRAMS: the test programs to build (make targets, e.g. tests/mpi/test_core), instead of all
# of them (the sanitizer stage of run-tests.sh: an instrumented build of every program took ~10 minutes).
if [ -n "${ARMCIX_BUILD_PROGRAMS:-}" ]; then
  # shellcheck disable=SC2086 # a list of make targets
  make -j"$(nproc)" $ARMCIX_BUILD_PROGRAMS >>make.out 2>&1 || fail "make check-programs" "$build/make.out"
else
  make -j"$(nproc)" check-programs >>make.out 2>&1 || fail "make check-programs" "$build/make.out"
fi
echo "$build"
