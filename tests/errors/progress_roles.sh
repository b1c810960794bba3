#!/usr/bin/env bash
# Progress ranks decided in MPI_Init (progress/progress_roles.h), with ARMCI_PROGRESS_RANKS in the launch
# environment: 4 processes as 2 simulated nodes (ARMCI_NODE_SIZE=2) of 1 program rank + 1 progress rank.
# - Before ARMCI_Init MPI_COMM_WORLD already has the 2 program ranks only (size, reduction, barrier), and
#   ARMCI's world is the same; with ARMCI_Init and with ARMCI_Init_mpi_comm(a duplicate of it).
# - A program that never calls ARMCI ends normally (the progress ranks waiting in MPI_Init finalize too).
# - Errors raised in MPI_Init name it: a setting that differs between processes, a node without a program
#   rank, ARMCI_SHM=0; ARMCI_Init_mpi_comm with a part of MPI_COMM_WORLD names its argument.
# Every run is bounded: a hang fails.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/early_roles"
passed=0 failed=0
run() {  # extra environment..., then -- and the program's arguments
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env ARMCI_PROGRESS_RANKS=1 ARMCI_NODE_SIZE=2 "${envs[@]}" timeout 120 ${MPIEXEC:-mpiexec.mpich} -n 4 "$bin" "$@" 2>&1
}
report() {  # description, verdict (0 = pass), output
  if [ "$2" = 0 ]; then echo "PASS progress roles: $1"; passed=$((passed + 1))
  else echo "FAIL progress roles: $1"; echo "$3" | tail -n 20 | sed 's/^/    | /'; failed=$((failed + 1)); fi
}
ends_with_error() {  # rc, output, wanted substrings...: non-zero exit (not the timeout), every substring
  local rc="$1" out="$2"; shift 2
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || return 1
  local w; for w in "$@"; do grep -qF -- "$w" <<< "$out" || return 1; done
}

out="$(run -- sizes 2)"; rc=$?
[ $rc = 0 ] && grep -q "early_roles: ok (2 program ranks)" <<< "$out"
report "MPI_COMM_WORLD before ARMCI_Init = the 2 program ranks, ARMCI agrees, put/get ring (exit $rc)" $? "$out"

out="$(run -- comm_dup 2)"; rc=$?
[ $rc = 0 ] && grep -q "early_roles: ok (2 program ranks)" <<< "$out"
report "ARMCI_Init_mpi_comm(duplicate of MPI_COMM_WORLD) (exit $rc)" $? "$out"

out="$(run -- no_armci 2)"; rc=$?
[ $rc = 0 ] && grep -q "early_roles: ok (2 processes, no ARMCI)" <<< "$out"
report "no ARMCI call: the job ends normally (exit $rc)" $? "$out"

# Error cases: description, extra environment (words, may be empty), program arguments, wanted substrings.
error_case() {
  local desc="$1" envs="$2" args="$3" out rc
  shift 3
  # shellcheck disable=SC2086  # words on purpose
  out="$(run $envs -- $args)"; rc=$?
  ends_with_error $rc "$out" "ARMCI Error" "$@"
  report "$desc (exit $rc)" $? "$out"
}
error_case "ARMCI_Init_mpi_comm(part of MPI_COMM_WORLD): error naming 'comm'" "" comm_split \
  "ARMCI_Init_mpi_comm" "argument 'comm'"
error_case "ARMCI_PROGRESS_RANKS on one process only: error in MPI_Init" "ARMCI_PROGRESS_RANKS=0" differ \
  "MPI_Init" "ARMCI_PROGRESS_RANKS must be the same on every process"
error_case "as many progress ranks as a node has processes: error in MPI_Init" "ARMCI_PROGRESS_RANKS=2" sizes \
  "MPI_Init" "ARMCI_PROGRESS_RANKS=2: a node has only 2 process(es)"
error_case "ARMCI_SHM=0: error in MPI_Init" "ARMCI_SHM=0" sizes "MPI_Init" "needs the node-local path (ARMCI_SHM=1)"

# A launcher gone without killing the job (Hydra 4.0.2 once left two progress ranks of an aborted job
# running 20 minutes): the progress ranks notice their parent is gone and exit within seconds.  The program
# ranks sleep meanwhile (40 s) and are killed here.
orphan_case() {
  local log i proxy="" progress="" left="" verdict=1
  log="$(mktemp)"
  env ARMCI_PROGRESS_RANKS=1 ARMCI_NODE_SIZE=2 timeout 120 ${MPIEXEC:-mpiexec.mpich} -n 4 "$bin" orphan >"$log" 2>&1 &
  for i in $(seq 1 300); do  # up to 30 s for both program ranks to say they are up
    [ "$(grep -c "program rank pid" "$log")" = 2 ] && break
    sleep 0.1
  done
  local program_pids
  program_pids="$(sed -n 's/.*program rank pid \([0-9]*\).*/\1/p' "$log" | sort -n | tr '\n' ' ')"
  # The launcher's process on this machine (Hydra's proxy): the program ranks' parent; the progress ranks
  # are its other children.
  for i in $program_pids; do proxy="$(ps -o ppid= -p "$i" | tr -d ' ')"; done
  if [ -n "$proxy" ] && [ "$proxy" -gt 1 ]; then
    for i in $(pgrep -P "$proxy"); do grep -qw "$i" <<< "$program_pids" || progress="$progress $i"; done
    kill -9 "$proxy"
    for i in $(seq 1 100); do  # up to 10 s for the progress ranks to leave
      left=""
      for p in $progress; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
      [ -z "$left" ] && break
      sleep 0.1
    done
    [ "$(wc -w <<< "$progress")" = 2 ] && [ -z "$left" ] && verdict=0
  fi
  # shellcheck disable=SC2086  # pids, each a word
  kill -9 $program_pids $left 2>/dev/null
  wait
  report "launcher killed: the progress ranks exit (program ranks $program_pids, launcher $proxy, progress ranks$progress, left after 10 s:${left:- none})" \
    $verdict "$(cat "$log")"
  rm -f "$log"
}
orphan_case

echo "$passed passed, $failed failed"
[ $failed = 0 ]
