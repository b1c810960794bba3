#!/usr/bin/env bash
# Settings accepted for job scripts written for other ARMCI implementations and ignored here:
# ARMCI_DEFAULT_SHMMAX (old ARMCI's and GA's ComEx ports' shared-memory cap, doc/user-guide.md).  Any value
# (a number, junk) must neither stop nor change the program, and under ARMCI_VERBOSE=1 rank 0 must print a
# notice naming why it means nothing here; without ARMCI_VERBOSE nothing is printed about it.
# abort_case with a case name it does not know raises no error and exits with 3.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/abort_case"
fails=0 passes=0
run() { timeout 120 env "$@" ${MPIEXEC:-mpiexec.mpich} -n 2 "$bin" no_such_case 2>&1; }
report() {  # name, verdict (0 = pass), output
  if [ "$2" = 0 ]; then
    echo "PASS ignored settings: $1"; passes=$((passes + 1))
  else
    echo "FAIL ignored settings: $1"
    echo "$3" | tail -n 20 | sed 's/^/    | /'
    fails=$((fails + 1))
  fi
}
notice="notice: ARMCI_DEFAULT_SHMMAX=8192 is ignored: it capped the shared-memory segments of old ARMCI"

out="$(run ARMCI_VERBOSE=1 ARMCI_DEFAULT_SHMMAX=8192)"; rc=$?
[ $rc -eq 3 ] && grep -q "no error raised" <<< "$out" && [ "$(grep -c "$notice" <<< "$out")" = 1 ] &&
  grep -q "ARMCI_DEFAULT_SHMMAX=8192$" <<< "$out"
report "ARMCI_DEFAULT_SHMMAX=8192 with ARMCI_VERBOSE=1: one notice (rank 0), banner row, program runs (exit $rc)" $? "$out"

out="$(run ARMCI_DEFAULT_SHMMAX=8192)"; rc=$?
[ $rc -eq 3 ] && grep -q "no error raised" <<< "$out" && ! grep -q "ARMCI_DEFAULT_SHMMAX" <<< "$out"
report "ARMCI_DEFAULT_SHMMAX=8192 without ARMCI_VERBOSE: silent, program runs (exit $rc)" $? "$out"

out="$(run ARMCI_VERBOSE=1 "ARMCI_DEFAULT_SHMMAX=not a size")"; rc=$?
[ $rc -eq 3 ] && grep -q "no error raised" <<< "$out" && grep -q "notice: ARMCI_DEFAULT_SHMMAX=not a size is ignored" <<< "$out"
report "ARMCI_DEFAULT_SHMMAX with a malformed value: accepted, notice (exit $rc)" $? "$out"

echo "$passes passed, $fails failed"
[ $fails = 0 ]
