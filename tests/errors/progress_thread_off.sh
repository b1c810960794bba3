#!/usr/bin/env bash
# ARMCI_PROGRESS_THREAD=1 in a program that started MPI itself below MPI_THREAD_MULTIPLE (as GA's programs
# do): the thread cannot run, and armci-x must say so exactly once (rank 0), loudly, and carry on.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
# abort_case calls plain MPI_Init; with a case name it does not know it raises no error and exits with 3.
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/abort_case"
out="$(ARMCI_PROGRESS_THREAD=1 timeout 120 ${MPIEXEC:-mpiexec.mpich} -n 2 "$bin" progress_thread_off 2>&1)"; rc=$?
n="$(grep -c "armci-x: WARNING: ARMCI_PROGRESS_THREAD=1 is OFF" <<< "$out")"
if [ $rc -eq 3 ] && grep -q "no error raised" <<< "$out" && [ "$n" = 1 ] && grep -q "MPI_Init_thread with MPI_THREAD_MULTIPLE" <<< "$out"; then
  echo "PASS progress thread off: one warning, run succeeded"
  exit 0
fi
echo "FAIL progress thread off: exit $rc, $n warning line(s)"
echo "$out" | tail -n 20 | sed 's/^/    | /'
exit 1
