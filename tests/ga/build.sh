#!/bin/sh
# Build the Global Arrays integration tests (tests/ga/*.c) and the demo
# (examples/ga_demo.c) against a given ARMCI library.
#
# usage: tests/ga/build.sh OUTDIR ["LIB_LINK_FLAGS"]
#
#   LIB_LINK_FLAGS  how to link the ARMCI library; default Debian's ARMCI-MPI
#                   ("-larmci-mpich", or "-larmci" with GA_MPI=openmpi). For armci-x pass e.g.
#                   "/path/to/libarmci.a -lstdc++" or "-L/path -larmci -lstdc++".
#
# Environment overrides:
#   GA_MPI      mpich or openmpi: which of Debian's GA builds (libga-mpich.a,
#               libga-openmpi.a) and MPI the defaults below use (default: mpich)
#   MPICC       MPI C compiler               (default: mpicc.$GA_MPI)
#   CFLAGS      compile flags                (default: -O2 -g -Wall)
#   GA_LIBS     Global Arrays library        (default: -lga-$GA_MPI)
#   EXTRA_LIBS  libraries GA itself needs    (default: Debian's ScaLAPACK for
#               $GA_MPI, -llapack -lblas -lgfortran -lm; with openmpi also
#               -lstdc++ -lpthread)
#
# Open MPI: GA_MPI=openmpi tests/ga/build.sh OUT "/path/to/build/src/.libs/libarmci.a -lstdc++"
# (the bare -larmci default would be ARMCI-MPI's Open MPI build, /usr/lib/x86_64-linux-gnu/libarmci.a).
#
# Exits non-zero if any program fails to build.

usage() { echo "usage: $0 OUTDIR [\"LIB_LINK_FLAGS\"]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$1
lib=${2:-}

GA_MPI=${GA_MPI:-mpich}
case "$GA_MPI" in mpich|openmpi) ;; *) echo "GA_MPI must be mpich or openmpi, not '$GA_MPI'" >&2; exit 2 ;; esac
MPICC=${MPICC:-mpicc.$GA_MPI}
CFLAGS=${CFLAGS:--O2 -g -Wall}
GA_LIBS=${GA_LIBS:--lga-$GA_MPI}
if [ -z "${EXTRA_LIBS+set}" ]; then
    scalapack=/usr/lib/x86_64-linux-gnu/libscalapack-$GA_MPI.so.2.2
    [ -e "$scalapack" ] || scalapack=-lscalapack-$GA_MPI
    EXTRA_LIBS="$scalapack -llapack -lblas -lgfortran -lm"
    [ "$GA_MPI" = openmpi ] && EXTRA_LIBS="$EXTRA_LIBS -lstdc++ -lpthread"
fi

# Debian's ARMCI-MPI for this MPI: libarmci-mpich for MPICH, libarmci (Open MPI build) for Open MPI.
if [ -z "$lib" ]; then
    if [ "$GA_MPI" = openmpi ]; then lib=-larmci; else lib=-larmci-mpich; fi
fi
mkdir -p "$out" || exit 1
echo "building GA tests into $out"
echo "  MPICC=$MPICC CFLAGS=$CFLAGS"
echo "  link: $GA_LIBS $lib $EXTRA_LIBS"

nfail=0
for src in "$here"/*.c "$top"/examples/ga_demo.c; do
    [ -e "$src" ] || continue
    name=$(basename "$src" .c)
    echo "  CCLD $name"
    # $CFLAGS, $GA_LIBS, $lib and $EXTRA_LIBS are word-split on purpose
    # shellcheck disable=SC2086
    if ! $MPICC $CFLAGS -I"$here" "$src" -o "$out/$name" $GA_LIBS $lib $EXTRA_LIBS; then
        echo "  FAILED to build $name" >&2
        nfail=$((nfail + 1))
    fi
done
[ "$nfail" -eq 0 ] || { echo "$nfail program(s) failed to build" >&2; exit 1; }
exit 0
