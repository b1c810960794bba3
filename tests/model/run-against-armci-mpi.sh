#!/usr/bin/env bash
# The model tester's second oracle: the same programs on Debian's ARMCI-MPI (-larmci-mpich, MPICH; 0.3.1 on
# Debian 12, 0.4 on Debian 13), checked against the same model.  Where ARMCI-MPI passes a seed that armci-x
# fails, the finding is armci-x's; where both fail, the model (or the program) is suspect.  ARMCI-MPI needs
# ARMCI_USE_WIN_ALLOCATE=0 on Debian 12's MPICH 4.0.2 (MPICH issue 6110).  armci-x's own settings in the
# environment are ignored by ARMCI-MPI.  Strides are GA's (--ga-strides): ARMCI-MPI turns a strided transfer
# into an MPI subarray, which takes each stride as a multiple of the one below.  Allocations are on the world
# only (--no-groups): ARMCI-MPI 0.3.1's ARMCI_Fence(p) asserts "grp_proc >= 0" when an allocation's group
# leaves p out (src/gmr-extras.c, gmr_flush).
#
# Usage: tests/model/run-against-armci-mpi.sh [--seeds N] [--np N] [--outdir DIR] [model_tester args ...]
# Closing line: "N passed, N failed" (seeds).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
outdir="${TMPDIR:-/tmp}/armci-mpi-model" np=2 args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --np) np="$2"; shift 2 ;;
    --outdir) outdir="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
CXX="${MPICXX:-mpicxx.mpich}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
mkdir -p "$outdir"
exe="$outdir/model_tester_armci_mpi"
if ! "$CXX" -O2 -g -std=c++17 -I/usr/include "$here"/main.cc "$here"/program.cc "$here"/run.cc "$here"/emit.cc \
     -larmci-mpich -lpthread -o "$exe" > "$outdir/build.log" 2>&1; then
  cat "$outdir/build.log"
  echo "0 passed, 1 failed"
  exit 1
fi
cd "$outdir" && ARMCI_USE_WIN_ALLOCATE=0 timeout 1200 $MPIEXEC -n "$np" "$exe" --layout armci-mpi --ga-strides --no-groups "${args[@]}"
