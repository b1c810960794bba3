#!/usr/bin/env bash
# ARMCI_PROGRESS_THREAD=1 in a program that starts MPI itself, as GA's programs and NWChem do.
# - Plain MPI_Init, and MPI_Init_thread(MPI_THREAD_FUNNELED): armci-x's wrappers ask MPI for
#   MPI_THREAD_MULTIPLE, so the thread runs (the verbose banner says "progress thread: running") and no
#   warning is printed; MPI_Init_thread reports the level MPI gave (3).
# - MPI started past the wrappers (PMPI_Init, as Open MPI's Fortran MPI_INIT does): the thread cannot run,
#   and ARMCI_Init fails with an error that names the cause and the fix (no hang, no silent fallback).
# abort_case with a case name it does not know raises no error and exits with 3.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/abort_case"
fails=0
run() { ARMCI_PROGRESS_THREAD=1 ARMCI_VERBOSE=1 timeout 120 ${MPIEXEC:-mpiexec.mpich} -n 2 "$bin" "$1" 2>&1; }
report() {  # name, verdict (0 = pass), output
  if [ "$2" = 0 ]; then
    echo "PASS progress thread: $1"
  else
    echo "FAIL progress thread: $1"
    echo "$3" | tail -n 20 | sed 's/^/    | /'
    fails=$((fails + 1))
  fi
}
warning="ARMCI_PROGRESS_THREAD=1 needs MPI_THREAD_MULTIPLE"

out="$(run progress_thread_off)"; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && ! grep -q "no error raised" <<< "$out" &&
  grep -q "ARMCI_Init: environment variable ARMCI_PROGRESS_THREAD=1 needs MPI_THREAD_MULTIPLE" <<< "$out" &&
  grep -q "past armci-x's MPI_Init" <<< "$out" && grep -q "MPI_Init_thread(MPI_THREAD_MULTIPLE)" <<< "$out"
report "MPI started past the wrapper (PMPI_Init): ARMCI_Init fails naming cause and fix (exit $rc)" $? "$out"

out="$(run progress_thread_plain)"; rc=$?
[ $rc -eq 3 ] && grep -q "no error raised" <<< "$out" && ! grep -q "$warning" <<< "$out" &&
  grep -q "MPI thread level 3" <<< "$out" && grep -q "progress thread: running" <<< "$out"
report "plain MPI_Init raised to MPI_THREAD_MULTIPLE, thread running (exit $rc)" $? "$out"

out="$(run progress_thread_funneled)"; rc=$?
[ $rc -eq 3 ] && grep -q "no error raised" <<< "$out" && ! grep -q "$warning" <<< "$out" &&
  [ "$(grep -c "MPI_Init_thread provided 3" <<< "$out")" = 2 ] && grep -q "progress thread: running" <<< "$out"
report "MPI_Init_thread(FUNNELED) raised, provided reported, thread running (exit $rc)" $? "$out"

echo "$((3 - fails)) passed, $fails failed"
[ $fails = 0 ]
