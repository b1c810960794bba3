#!/bin/bash
# Build (and optionally run) the Fortran re-creation of GA's test.F (tests/gasuite/testf.F) against
# Debian's GA and an ARMCI library, without Fortran support in configure.
#
# usage: tests/gasuite/build-fortran.sh [--lib LINK_FLAGS] [--out DIR] [--run NP [VAR=value ...]]
#
#   --lib   how to link ARMCI (default: armci-x from the build tree: $ARMCIX_BUILDDIR/src/.libs/libarmci.a
#           -lstdc++; pass "-larmci-mpich" for Debian's ARMCI-MPI)
#   --out   output directory (default: $ARMCIX_BUILDDIR/tests/gasuite)
#   --run   after building, run the program on NP ranks with $MPIEXEC (default mpiexec.mpich or .openmpi, as GA_LIB),
#           environment VAR=value pairs applied to the run; the exit status is the program's
#
# From tests/gasuite/manifest.txt it is run with np = 0 (directly, not under mpiexec) and starts the
# MPI job itself; check.sh exports ARMCIX_BUILDDIR, top_srcdir, MPIEXEC and GA_LIB.
# Environment: MPIFC (default mpif90.mpich, or mpif90.openmpi when GA_LIB is libga-openmpi.a), FFLAGS (default -O2 -g), GA_LIB, SCALAPACK.
#
# GA's Fortran interface takes buffers of any type (it was compiled with -fdefault-integer-8 and
# calls like ga_put accept integer, double and complex arrays), so gfortran >= 10 needs
# -fallow-argument-mismatch; -w silences the resulting type-mismatch warnings, which are inherent in
# calling GA from Fortran.  -fno-aggressive-loop-optimizations: MA's dbl_mb/int_mb are declared with
# extent 2 and indexed far beyond it (MA's documented usage), which gcc would otherwise "optimise".
set -u
here="$(cd "$(dirname "$0")" && pwd)"
builddir="${ARMCIX_BUILDDIR:-$(pwd)}"
lib="" out="" np=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --run) np="$2"; shift 2; break ;;
    *) echo "build-fortran.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
runenv=("$@")
[ -n "$lib" ] || lib="$builddir/src/.libs/libarmci.a -lstdc++"
[ -n "$out" ] || out="$builddir/tests/gasuite"
GA_LIB="${GA_LIB:-/usr/lib/x86_64-linux-gnu/libga-mpich.a}"
# The MPI follows the GA library's build (libga-openmpi.a: Open MPI; anything else: MPICH).
flavor=mpich
case "$GA_LIB" in *openmpi*) flavor=openmpi ;; esac
MPIFC="${MPIFC:-mpif90.$flavor}"
FFLAGS="${FFLAGS:--O2 -g}"
if [ -z "${SCALAPACK:-}" ]; then
  SCALAPACK=/usr/lib/x86_64-linux-gnu/libscalapack-$flavor.so.2.2
  [ -e "$SCALAPACK" ] || SCALAPACK=-lscalapack-$flavor
fi
if ! command -v "$MPIFC" > /dev/null; then
  echo "build-fortran.sh: no $MPIFC: SKIP (Fortran GA test not built)"
  exit 0
fi
if [ ! -f "$GA_LIB" ]; then
  echo "build-fortran.sh: no Global Arrays library ($GA_LIB): SKIP"
  exit 0
fi
mkdir -p "$out" || exit 1
# shellcheck disable=SC2086
if ! $MPIFC $FFLAGS -fdefault-integer-8 -fallow-argument-mismatch -fno-aggressive-loop-optimizations -w \
    -I"$here" "$here/testf.F" -o "$out/testf" "$GA_LIB" $lib "$SCALAPACK" -llapack -lblas -lm; then
  echo "build-fortran.sh: building testf failed" >&2
  exit 1
fi
[ -n "$np" ] || exit 0
# shellcheck disable=SC2086
exec env ${runenv[@]+"${runenv[@]}"} ${MPIEXEC:-mpiexec.$flavor} -n "$np" "$out/testf"
