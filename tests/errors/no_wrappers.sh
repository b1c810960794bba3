#!/usr/bin/env bash
# libarmci without armci-x's MPI wrapper library (tests/errors/abort_case_nowrap; doc/user-guide.md, "Using
# armci-x with MPI tools"): a feature that needs the wrappers, asked for explicitly, ends in an ARMCI error at
# ARMCI_Init that names the setting, the cause and the fix (never a hang); left to "auto" it falls back
# quietly and the program runs.  abort_case with a case name it does not know raises no error and exits 3.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/abort_case_nowrap"
passed=0 failed=0
launch() {  # np, environment..., then -- and the command: under the launcher, within 120 s
  local np="$1"; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  # Open MPI 5's launcher writes NUL bytes into the output, which bash's $(...) drops with a warning each time.
  env "${envs[@]}" timeout 120 ${MPIEXEC:-mpiexec.mpich} -n "$np" "$@" 2>&1 | tr -d '\000'
  return "${PIPESTATUS[0]}"
}
run() {  # np, environment..., then -- and the case: abort_case_nowrap under the launcher
  local before=()
  while [ "$1" != -- ]; do before+=("$1"); shift; done
  shift
  launch "${before[@]}" -- "$bin" "$@"
}
report() {  # description, verdict (0 = pass), output
  if [ "$2" = 0 ]; then echo "PASS no wrappers: $1"; passed=$((passed + 1))
  else echo "FAIL no wrappers: $1"; echo "$3" | tail -n 20 | sed 's/^/    | /'; failed=$((failed + 1)); fi
}
named_error() {  # rc, output, wanted substrings...: an abort (not the timeout), every substring
  local rc="$1" out="$2"; shift 2
  [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && [ "$rc" -ne 124 ] || return 1
  local w; for w in "$@"; do grep -qF -- "$w" <<< "$out" || return 1; done
}
fix="link -larmcix-mpiwrap ahead of -larmci, or run with LD_PRELOAD=libarmcix-mpiwrap.so"

out="$(run 4 ARMCI_PROGRESS_RANKS=1 ARMCI_NODE_SIZE=2 -- none)"; rc=$?
named_error $rc "$out" "ARMCI_Init: environment variable ARMCI_PROGRESS_RANKS=1 needs armci-x's MPI wrapper library" "$fix"
report "ARMCI_PROGRESS_RANKS=1: named error (exit $rc)" $? "$out"

out="$(run 2 ARMCI_MPI_YIELD=1 -- none)"; rc=$?
named_error $rc "$out" "ARMCI_Init: environment variable ARMCI_MPI_YIELD=1 needs armci-x's MPI wrapper library" "$fix"
report "ARMCI_MPI_YIELD=1: named error (exit $rc)" $? "$out"

out="$(run 2 ARMCI_MPI_YIELD_TIMER_US=200 -- none)"; rc=$?
named_error $rc "$out" "ARMCI_Init: environment variable ARMCI_MPI_YIELD_TIMER_US=200 needs armci-x's MPI wrapper" "$fix"
report "ARMCI_MPI_YIELD_TIMER_US=200: named error (exit $rc)" $? "$out"

out="$(run 2 ARMCI_PROGRESS_THREAD=1 -- progress_thread_plain)"; rc=$?
named_error $rc "$out" "ARMCI_PROGRESS_THREAD=1 needs MPI_THREAD_MULTIPLE" "without armci-x's MPI wrapper library" \
  "MPI_Init_thread(MPI_THREAD_MULTIPLE)" "$fix"
report "ARMCI_PROGRESS_THREAD=1 with plain MPI_Init: named error (exit $rc)" $? "$out"

# Auto (nothing set), 4 ranks: on a 2-core machine yielding waits and the timer would be on with the wrappers.
out="$(run 4 ARMCI_VERBOSE=1 -- none)"; rc=$?
[ $rc = 3 ] && grep -q "no error raised" <<< "$out" && grep -q "MPI wrappers (libarmcix-mpiwrap): none" <<< "$out" &&
  grep -q "blocking MPI calls: MPI's own" <<< "$out" && grep -q "yield timer in blocking MPI calls: off" <<< "$out"
report "auto settings: the program runs, yielding waits and the timer quietly off (exit $rc)" $? "$out"

# The banner's start-up line: every phase of rank 0's ARMCI_Init in order, and a total that is their sum (each
# rounded to the microsecond: within 8 us).
phases_ok() {  # OUTPUT FIRST-PHASE
  local line
  line="$(grep -E "^  ARMCI_Init on rank 0, us: $2 [0-9]+, settings [0-9]+, census record [0-9]+, census and duplicate [0-9]+, nodes [0-9]+, resolve [0-9]+, modules [0-9]+ \([0-9]+ us in all\)$" <<< "$1")" || return 1
  awk -F'[:,(]' '{ s = 0; for (i = 3; i <= 9; ++i) { n = split($i, w, " "); s += w[n] } split($10, t, " ");
                   d = s - t[1]; exit (d < -8 || d > 8) }' <<< "$line"
}
phases_ok "$out" MPI_Query_thread
report "ARMCI_VERBOSE=1: ARMCI_Init's phases on rank 0, MPI started by the program" $? "$(grep 'ARMCI_Init on' <<< "$out")"

# ARMCI_Init starting MPI itself asks for MPI_THREAD_MULTIPLE for the progress thread (no wrapper needed).
out="$(run 2 ARMCI_PROGRESS_THREAD=1 ARMCI_VERBOSE=1 -- armci_starts_mpi)"; rc=$?
[ $rc = 3 ] && grep -q "progress thread: running" <<< "$out"
report "ARMCI_PROGRESS_THREAD=1, MPI started by ARMCI_Init: thread running (exit $rc)" $? "$out"
phases_ok "$out" MPI_Init_thread
report "ARMCI_VERBOSE=1: ARMCI_Init's phases on rank 0, MPI started by ARMCI_Init" $? "$(grep 'ARMCI_Init on' <<< "$out")"

# The wrappers in one process and not in the other (one launch, two programs): the census's fingerprints
# differ in the last value only, and ARMCI_Init names the wrapper library and both processes.  One app context
# whose rank 0 execs the wrapped program, not an MPMD launch ("-n 1 A : -n 1 B"): Debian 13's Open MPI 5.0.7
# mpiexec (prterun with the external PMIx) segfaults on any MPMD command line, even "-n 1 true : -n 1 true"
# (open-mpi/ompi#13303).  The rank comes from the launcher's environment: PMI_RANK (Hydra), OMPI_COMM_WORLD_RANK.
wrapped="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/abort_case"
# shellcheck disable=SC2016 # expanded by the launched shell, per rank
pick='r="${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-}}"; [ -n "$r" ] || { echo "no rank in the environment" >&2; exit 2; }
      if [ "$r" = 0 ]; then exec "$1" none; else exec "$2" none; fi'
out="$(launch 2 -- bash -c "$pick" pick "$wrapped" "$bin")"; rc=$?
named_error $rc "$out" "ARMCI_Init" "libarmcix-mpiwrap) must be in every process or in none" \
  "process 0 has it, process 1 lacks it"
report "the wrappers in process 0 only: named error (exit $rc)" $? "$out"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
