#!/usr/bin/env bash
# The default ARMCI_Error path: each bad-input case must abort the job (non-zero exit, no hang) with a
# message naming the ARMCI call and the argument.  Run directly (np 0 in tests/manifest.txt), not under
# mpiexec: it starts its own 2-rank jobs, and Open MPI's launcher refuses to run inside another job.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/abort_case"
np=2
passed=0 failed=0
check() {  # case, expected substrings...
  local c="$1"; shift
  local out rc
  out="$(timeout 60 ${MPIEXEC:-mpiexec.mpich} -n "$np" "$bin" "$c" 2>&1)"; rc=$?
  local ok=1
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || ok=0
  for want in "$@"; do grep -qF -- "$want" <<< "$out" || ok=0; done
  if [ $ok = 1 ]; then echo "PASS abort case $c"; passed=$((passed + 1))
  else echo "FAIL abort case $c (exit $rc)"; echo "$out" | tail -n 15 | sed 's/^/    | /'; failed=$((failed + 1)); fi
}
check put_bad_rank "ARMCI Error" "ARMCI_Put" "'proc'"
check get_unallocated "ARMCI Error" "ARMCI_Get" "'src'" "not inside memory allocated with ARMCI_Malloc"
check acc_bad_type "ARMCI Error" "ARMCI_Acc" "'datatype' = 42"
check not_initialized "ARMCI Error" "ARMCI_Malloc" "not initialized"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
