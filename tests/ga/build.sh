#!/bin/sh
# Build the Global Arrays integration tests (tests/ga/*.c) and the demo
# (examples/ga_demo.c) against a given ARMCI library.
#
# usage: tests/ga/build.sh OUTDIR ["LIB_LINK_FLAGS"]
#
#   LIB_LINK_FLAGS  how to link the ARMCI library; default "-larmci-mpich"
#                   (Debian's ARMCI-MPI). For armci-x pass e.g.
#                   "/path/to/libarmci.a -lstdc++" or "-L/path -larmci -lstdc++".
#
# Environment overrides:
#   MPICC       MPI C compiler               (default: mpicc.mpich)
#   CFLAGS      compile flags                (default: -O2 -g -Wall)
#   GA_LIBS     Global Arrays library        (default: -lga-mpich)
#   EXTRA_LIBS  libraries GA itself needs    (default: Debian's ScaLAPACK for
#               MPICH, -llapack -lblas -lgfortran -lm)
#
# Exits non-zero if any program fails to build.

usage() { echo "usage: $0 OUTDIR [\"LIB_LINK_FLAGS\"]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$1
lib=${2:--larmci-mpich}

MPICC=${MPICC:-mpicc.mpich}
CFLAGS=${CFLAGS:--O2 -g -Wall}
GA_LIBS=${GA_LIBS:--lga-mpich}
if [ -z "${EXTRA_LIBS+set}" ]; then
    scalapack=/usr/lib/x86_64-linux-gnu/libscalapack-mpich.so.2.2
    [ -e "$scalapack" ] || scalapack=-lscalapack-mpich
    EXTRA_LIBS="$scalapack -llapack -lblas -lgfortran -lm"
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
