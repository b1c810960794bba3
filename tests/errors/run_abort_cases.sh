#!/usr/bin/env bash
# The default ARMCI_Error path: each bad-input case must abort the job (non-zero exit, no hang, no crash)
# within a time bound, with a message naming the ARMCI call and the argument or the disagreeing
# processes.  Every case runs on the node-local path (default) and through MPI (ARMCI_SHM=0).  Run
# directly (np 0 in tests/manifest.txt), not under mpiexec: it starts its own 2-rank jobs, and Open MPI's
# launcher refuses to run inside another job.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/abort_case"
np=2
bound="${ABORT_CASE_SECONDS:-30}"  # generous for a loaded 2-core machine; a hang is what it catches
# The cases run ABORT_CASE_JOBS at a time (default 3: each is a 2-4 process job that mostly waits for its
# launcher; one after another they took 43 s of the suite's 467 s on MPICH, 62 s on Open MPI, in CI);
# their results are printed in the order they are listed.
jobs_max="${ABORT_CASE_JOBS:-3}"
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT
seq_no=0
spawn() {  # runs "$@" in the background into the next result file, at most jobs_max at a time
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  seq_no=$((seq_no + 1))
  "$@" >"$results/$(printf '%04d' "$seq_no")" 2>&1 &
}
one_abort() {  # case, ARMCI_SHM value, expected substrings...
  local c="$1" shm="$2"; shift 2
  local out rc ok=1
  out="$(ARMCI_SHM=$shm timeout "$bound" ${MPIEXEC:-mpiexec.mpich} -n "$np" "$bin" "$c" 2>&1)"; rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || ok=0
  grep -qE "Segmentation|SIGSEGV|signal 11|Bus error" <<< "$out" && ok=0
  for want in "$@"; do grep -qF -- "$want" <<< "$out" || ok=0; done
  if [ $ok = 1 ]; then echo "PASS abort case $c (ARMCI_SHM=$shm)"
  else echo "FAIL abort case $c (ARMCI_SHM=$shm, exit $rc$([ $rc = 124 ] && echo ': timed out'))"
    echo "$out" | tail -n 15 | sed 's/^/    | /'; fi
}
check() {  # case, expected substrings...: on the node-local path and through MPI
  local c="$1"; shift
  spawn one_abort "$c" 1 "$@"
  spawn one_abort "$c" 0 "$@"
}
# Under MPICH cliques (tests/check.sh --cliques: MPICH itself sees this machine as several nodes) the 2-rank
# jobs span nodes.  Cases that need their ranks on one node (a node's memory summed, progress ranks beside
# program ranks, node-sync's shared page) are skipped there, with the reason; node-sync's mismatches then take
# MPI's path, where only ARMCI_COLLECTIVE_TIMEOUT turns a mismatched collective into an error, and are checked
# that way instead.
several_nodes=""
if [ "${MPIR_CVAR_NUM_CLIQUES:-1}" -gt 1 ] 2>/dev/null; then several_nodes="MPIR_CVAR_NUM_CLIQUES=$MPIR_CVAR_NUM_CLIQUES"
elif [ -n "${MPIR_CVAR_ODD_EVEN_CLIQUES:-}" ] && [ "$MPIR_CVAR_ODD_EVEN_CLIQUES" != 0 ]; then
  several_nodes="MPIR_CVAR_ODD_EVEN_CLIQUES=$MPIR_CVAR_ODD_EVEN_CLIQUES"
fi
skipped=0
one_node() {  # case: true on one node; under cliques prints the SKIP line and returns false
  [ -z "$several_nodes" ] && return 0
  echo "SKIP abort case $1 (needs its ranks on one node; $several_nodes spreads them over several)"
  skipped=$((skipped + 1))
  return 1
}
check put_bad_rank "ARMCI Error" "ARMCI_Put" "'proc'"
check get_unallocated "ARMCI Error" "ARMCI_Get" "'src'" "not inside memory allocated with ARMCI_Malloc"
check acc_bad_type "ARMCI Error" "ARMCI_Acc" "'datatype' = 42"
check not_initialized "ARMCI Error" "ARMCI_Malloc" "not initialized"
# Garbage and wrapping remote addresses (issue 19, item 1).
check put_wrapping "ARMCI Error" "ARMCI_Put" "'dst'" "not inside memory allocated with ARMCI_Malloc"
check put_garbage "ARMCI Error" "ARMCI_Put" "'dst'" "not inside memory allocated with ARMCI_Malloc"
check get_garbage "ARMCI Error" "ARMCI_Get" "'src'" "not inside memory allocated with ARMCI_Malloc"
check rmw_garbage "ARMCI Error" "ARMCI_Rmw" "'prem'" "not inside memory allocated with ARMCI_Malloc"
# An operation that is none of ARMCI_Rmw's (tests/mpi/test_sync.cc checks the message through the error
# handler; this is the default path: the job ends).
check rmw_bad_op "ARMCI Error" "ARMCI_Rmw" "'op' = 43" "is not an ARMCI_Rmw operation"
check puts_garbage "ARMCI Error" "ARMCI_PutS" "'dst_ptr'" "not inside memory allocated with ARMCI_Malloc"
# A flag not from ARMCI_Malloc names 'flag' (item 3).
check put_flag_bad_flag "ARMCI Error" "ARMCI_Put_flag" "'flag'" "not inside memory allocated with ARMCI_Malloc"
# Sizes the node cannot hold (item 2): the same clear error on every rank.
check malloc_huge "[0] ARMCI Error" "[1] ARMCI Error" "ARMCI_Malloc" "'bytes' = 17592186044416" "can hold"
check malloc_huge_one_rank "ARMCI Error" "ARMCI_Malloc" "'bytes' = 17592186044416 on process 0" "can hold"
one_node malloc_node_sum && check malloc_node_sum "[0] ARMCI Error" "[1] ARMCI Error" "ARMCI_Malloc" "brings the slices on its node to" "can hold"
check malloc_local_huge "ARMCI Error" "ARMCI_Malloc_local" "'bytes' = 17592186044416"
# Mismatched collectives (item 4).
check free_one_rank_only "ARMCI Error" "process 0 is in ARMCI_Free while process 1 is in ARMCI_Finalize"
check free_one_rank_timeout "[0] ARMCI Error" "ARMCI_Free" "entered this collective call within 3 s"
check first_check_one_rank_timeout "[0] ARMCI Error" "ARMCI_Barrier" "entered this collective call within 3 s"
check free_different_allocations "ARMCI Error" "ARMCI_Free" "process 0 calls ARMCI_Free on allocation 1 while process 1 calls it on allocation 2"
check group_create_different_lists "ARMCI Error" "ARMCI_Group_create" "processes 1 and 0 call ARMCI_Group_create with a different pid_list"
check free_vs_barrier "ARMCI Error" "process 0 is in ARMCI_Free while process 1 is in ARMCI_Barrier"
# Unchecked (ARMCI_CHECK_COLLECTIVES=0), a rank passing NULL looks the region up by the serial the others name.
# Node-local pool blocks only: with ARMCI_SHM=0 the two ranks would free different windows and wait in each.
spawn one_abort free_null_unknown_nocheck 1 "[1] ARMCI Error" "ARMCI_Free" "ptr = NULL here, but the allocation the other processes free is unknown to this process"
check mutexes_vs_malloc "ARMCI Error" "process 0 is in ARMCI_Create_mutexes while process 1 is in ARMCI_Malloc"
# Settings that must agree (item 4).
check shm_differs "ARMCI Error" "ARMCI_Init" "ARMCI_SHM must be the same on every process" "process 1"
check window_kind_differs "ARMCI Error" "ARMCI_Init" "ARMCI_USE_WIN_ALLOCATE must be the same on every process" "process 1"
# ARMCI_PROGRESS_RANKS (issue 15): every node must keep a program rank; a count; the same everywhere.
check progress_ranks_all "ARMCI Error" "ARMCI_Init" "ARMCI_PROGRESS_RANKS=2"
check progress_ranks_negative "ARMCI Error" "ARMCI_Init" "ARMCI_PROGRESS_RANKS='-1' is not an integer"
check progress_ranks_differ "ARMCI Error" "ARMCI_Init" "ARMCI_PROGRESS_RANKS must be the same on every process" "process 1"
check progress_ranks_shm0 "ARMCI Error" "ARMCI_Init" "ARMCI_PROGRESS_RANKS=1 needs the node-local path (ARMCI_SHM=1)"
one_node progress_ranks_reinit && check progress_ranks_reinit "ARMCI Error" "ARMCI_Init" "ARMCI cannot be initialized again after ARMCI_Finalize"
# Not an abort (MPICH only: Open MPI's progress ranks do not wait for a meeting): program ranks that call
# PMPI_Finalize themselves never meet the progress ranks, which wait ARMCI_PROGRESS_RANKS_MEETING_S (set to
# 1 s by the case), say so and finalize alone; the job must end with status 0 within the bound.
one_normal_end() {  # case, expected substrings...
  local c="$1"; shift
  local out rc ok=1
  out="$(ARMCI_SHM=1 timeout "$bound" ${MPIEXEC:-mpiexec.mpich} -n "$np" "$bin" "$c" 2>&1)"; rc=$?
  [ $rc -eq 0 ] || ok=0
  for want in "$@"; do grep -qF -- "$want" <<< "$out" || ok=0; done
  if [ $ok = 1 ]; then echo "PASS case $c (ends normally)"
  else echo "FAIL case $c (exit $rc$([ $rc = 124 ] && echo ': timed out'))"
    echo "$out" | tail -n 15 | sed 's/^/    | /'; fi
}
check_ends_normally() { spawn one_normal_end "$@"; }
if ! ${MPIEXEC:-mpiexec.mpich} --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then
  one_node progress_ranks_pmpi_finalize && check_ends_normally progress_ranks_pmpi_finalize "did not reach MPI_Finalize within 1 s" \
    "finalizing without meeting them"
fi
# Progress ranks' shared-memory segments refused by the system (file-size limit, descriptor limit, the
# progress rank's address-space limit): 4 processes, 2 simulated nodes of 1 program + 1 progress rank.
one_node progress_segment_fsize && np=4 check progress_segment_fsize "ARMCI Error" "ARMCI_Malloc" "could not create a shared-memory segment of" "File too large"
one_node progress_segment_nofile && np=4 check progress_segment_nofile "ARMCI Error" "ARMCI_Malloc" "could not create a shared-memory segment of" "Too many open files"
one_node progress_segment_proxy_as && np=4 check progress_segment_proxy_as "ARMCI Error" "ARMCI_Malloc" "progress rank" "could not map shared-memory segment /armcix-"
# ARMCI_MPI_YIELD (issue 18): the same everywhere; auto, 1 or 0.
check mpi_yield_differs "ARMCI Error" "ARMCI_Init" "ARMCI_MPI_YIELD (-1 = auto) must be the same on every process" "process 1"
check mpi_yield_bad "ARMCI Error" "ARMCI_Init" "ARMCI_MPI_YIELD='sometimes' is not auto, 1 or 0"
check yield_timer_signal_not_rt "ARMCI Error" "ARMCI_Init" "ARMCI_MPI_YIELD_TIMER_SIGNAL=10 is not a real-time signal"
# ARMCI_NODES_FROM_MPI: the same everywhere (the census is compared before the nodes are found).
check nodes_from_mpi_differs "ARMCI Error" "ARMCI_Init" "ARMCI_NODES_FROM_MPI must be the same on every process" "process 1"
check nodes_from_mpi_bad "ARMCI Error" "ARMCI_Init" "ARMCI_NODES_FROM_MPI='maybe' is not a boolean (0/1)"
check pool_block_beyond_capacity "ARMCI Error" "ARMCI_Init" "ARMCI_POOL_BLOCK_KB=4096 is more than the pool holds (ARMCI_POOL_MB=2"
# ARMCI_NODE_SYNC: the same everywhere; a gather through shared memory names a process that is elsewhere.
check node_sync_differs "ARMCI Error" "ARMCI_Init" "ARMCI_NODE_SYNC (-1 = auto) must be the same on every process" "process 1"
if [ -z "$several_nodes" ]; then
  check node_sync_free_vs_msg_barrier "[0] ARMCI Error" "ARMCI_Free" "collective calls do not match (ARMCI_NODE_SYNC): process 1 did not take part"
  check node_sync_free_vs_gop "ARMCI Error" "collective calls do not match (ARMCI_NODE_SYNC)" "did not take part"
else
  for c in node_sync_free_vs_msg_barrier node_sync_free_vs_gop; do
    ARMCI_COLLECTIVE_TIMEOUT=3 check "$c" "[0] ARMCI Error" "ARMCI_Free" "entered this collective call within 3 s"
  done
fi
wait
cat "$results"/*
[ "$skipped" = 0 ] || echo "($skipped cases skipped: they need one node)"
passed=$(cat "$results"/* | grep -c '^PASS')
failed=$(cat "$results"/* | grep -c '^FAIL')
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
