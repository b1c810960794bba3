#!/usr/bin/env bash
# Builds ARMCI-MPI (pmodels/armci-mpi) from a source directory given to it, OUTSIDE our tree, for
# side-by-side comparisons (benchmarks/compare.sh --theirs). Contains none of ARMCI-MPI's code; it only
# runs that project's own autotools build.
#
#   tools/build-armci-mpi.sh SRC_DIR PREFIX        e.g. ../armci-mpi ../armci-mpi-head
#
# A bare git directory (such as a mirror) as SRC_DIR is exported first (git archive HEAD) into
# PREFIX/src. Result: PREFIX/lib/libarmci.a (ARMCI-MPI builds no shared library unless CONFIGURE_FLAGS says
# --enable-shared) and PREFIX/include/armci.h; compare with
#   benchmarks/compare.sh --theirs "-Wl,-rpath,PREFIX/lib -LPREFIX/lib -larmci" --theirs-include PREFIX/include
# Environment: CC (default mpicc.mpich), CFLAGS (default "-O2 -g"), CONFIGURE_FLAGS (extra configure options).
# ARMCI-MPI's configure.ac saves CFLAGS around AC_PROG_CC, so without CFLAGS it compiles with none: -O0, not
# autoconf's usual "-g -O2" (NWChem's src/tools/install-armci-mpi passes --enable-g, which is "-g -O0").
set -eu
[ $# -eq 2 ] || { echo "usage: tools/build-armci-mpi.sh SRC_DIR PREFIX" >&2; exit 2; }
src=$1 prefix=$2
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
if [ -f "$src/HEAD" ] && [ -d "$src/objects" ]; then  # a bare repository
    rm -rf "$prefix/src" && mkdir -p "$prefix/src"
    git --git-dir="$src" archive HEAD | tar -x -C "$prefix/src"
    git --git-dir="$src" rev-parse HEAD >"$prefix/src/.commit"
    src="$prefix/src"
fi
[ -f "$src/configure.ac" ] || { echo "build-armci-mpi: $src has no configure.ac" >&2; exit 2; }
cd "$src"
[ -x configure ] || autoreconf -vif >/dev/null
mkdir -p "$prefix/build"
cd "$prefix/build"
# shellcheck disable=SC2086
"$src/configure" --prefix="$prefix" CC="${CC:-mpicc.mpich}" CFLAGS="${CFLAGS:--O2 -g}" ${CONFIGURE_FLAGS:-} >configure.log 2>&1 ||
    { tail -n 30 configure.log >&2; exit 1; }
make -j2 >make.log 2>&1 || { tail -n 30 make.log >&2; exit 1; }
make install >install.log 2>&1 || { tail -n 30 install.log >&2; exit 1; }
echo "$prefix"
