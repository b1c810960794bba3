#!/usr/bin/env bash
# find_package(armci) from a CMake project (tests/link/cmake-consumer/) against a `make install` of this build
# into a staging directory (DESTDIR: the package configuration finds its files from its own place, so a
# moved install must work too).  Each variant configures the project, builds it, checks which libraries the
# program was linked to, and runs it on 2 ranks:
#   shared         MPI's C compiler, armci::armci: the shared libarmci
#   mpiwrap        armci::mpiwrap: libarmcix-mpiwrap and libarmci both linked, the wrappers first
#   static-choice  ARMCI_USE_STATIC_LIBS=ON with both installed: libarmci.a, no libarmci.so
#   static-only    a prefix holding only libarmci.a (as --disable-shared installs): the target adds the C++
#                  runtime that a C link line lacks
#   plain-cc       the plain C compiler: MPI comes from MPI::MPI_C, found through the MPI compiler armci-x
#                  was built with (on Debian the first `mpicc` on PATH may be another MPI's)
# Skipped (exit 77) where cmake is not installed.  Closing line: "N passed, N failed".
set -u
builddir="${ARMCIX_BUILDDIR:-$PWD}"
here="$(cd "$(dirname "$0")" && pwd)"
MPICC="${MPICC:-mpicc.mpich}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
if ! command -v cmake >/dev/null 2>&1; then
  echo "SKIP  cmake is not installed (tools/install-deps.sh installs it)"
  echo "0 passed, 0 failed, 1 skipped"; exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "PASS  $1"; passed=$((passed + 1)); }
fail() { echo "FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -25; failed=$((failed + 1)); }

if ! timeout 300 make -C "$builddir" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1; then
  fail "make install DESTDIR=..." "$tmp/install.log"
  echo "$passed passed, $failed failed"; exit 1
fi
config="$(find "$tmp/root" -name armci-config.cmake | head -1)"
if [ -z "$config" ]; then
  fail "no armci-config.cmake installed"; echo "$passed passed, $failed failed"; exit 1
fi
lib="$(cd "$(dirname "$config")/../.." && pwd)"
prefix="$(dirname "$lib")"
pass "armci-config.cmake installed in ${config#"$tmp/root"}"
# The static-only prefix: the same install without the shared libraries.
cp -a "$prefix" "$tmp/static-prefix"
rm -f "$tmp/static-prefix/$(basename "$lib")"/lib*.so*

# variant NAME PREFIX CC EXPECT_SO EXPECT_NOT_SO [cmake -D options ...]
variant() {
  local name="$1" pfx="$2" cc="$3" want="$4" unwanted="$5"; shift 5
  local b="$tmp/build-$name" log="$tmp/$name.log"
  if ! timeout 120 cmake -S "$here/cmake-consumer" -B "$b" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$pfx" \
       -DCMAKE_BUILD_TYPE=Release "$@" >"$log" 2>&1; then
    fail "$name: cmake configure" "$log"; return
  fi
  if ! timeout 120 cmake --build "$b" >>"$log" 2>&1; then fail "$name: cmake --build" "$log"; return; fi
  readelf -d "$b/consumer" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$b/needed"
  local w
  for w in $want; do
    grep -q "^$w" "$b/needed" || { fail "$name: consumer does not need $w (needs: $(tr '\n' ' ' <"$b/needed"))"; return; }
  done
  for w in $unwanted; do
    if grep -q "^$w" "$b/needed"; then fail "$name: consumer needs $w (needs: $(tr '\n' ' ' <"$b/needed"))"; return; fi
  done
  if timeout 120 $MPIEXEC -n 2 "$b/consumer" >>"$log" 2>&1 </dev/null && grep -q 'cmake consumer: OK' "$log"; then
    pass "$name: find_package(armci), built, $(grep -o 'armci::armci: [A-Z_]*' "$log" | head -1), ran on 2 ranks"
  else
    fail "$name: run on 2 ranks" "$log"
  fi
}

mpilib=libmpi  # libmpich.so for MPICH, libmpi.so for Open MPI
variant shared "$prefix" "$MPICC" "libarmci.so $mpilib" "libarmcix-mpiwrap.so"
variant mpiwrap "$prefix" "$MPICC" "libarmcix-mpiwrap.so libarmci.so" "" -DUSE_MPIWRAP=ON
if [ -f "$tmp/build-mpiwrap/needed" ] && grep -q libarmcix-mpiwrap "$tmp/build-mpiwrap/needed" &&
   [ "$(grep -n -m1 libarmcix-mpiwrap "$tmp/build-mpiwrap/needed" | cut -d: -f1)" -gt \
     "$(grep -n -m1 '^libarmci\.so' "$tmp/build-mpiwrap/needed" | cut -d: -f1)" ]; then
  fail "mpiwrap: libarmci.so is linked ahead of libarmcix-mpiwrap.so"
fi
variant static-choice "$prefix" "$MPICC" "$mpilib" "libarmci.so libarmcix-mpiwrap.so" -DARMCI_USE_STATIC_LIBS=ON
variant static-only "$tmp/static-prefix" "$MPICC" "$mpilib" "libarmci.so"
# The plain compiler must get the MPI armci-x was built with: MPICH's libmpich, not Open MPI's libmpi.so.40.
case "$MPICC" in
  *openmpi*) plain_want="libmpi.so" plain_unwanted="libmpich" ;;
  *mpich*) plain_want="libmpich" plain_unwanted="libmpi.so" ;;
  *) plain_want="$mpilib" plain_unwanted="" ;;
esac
variant plain-cc "$prefix" cc "libarmci.so $plain_want" "$plain_unwanted"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
