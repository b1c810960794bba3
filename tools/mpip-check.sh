#!/usr/bin/env bash
# armci-x under a real PMPI profiler: LLNL's mpiP (github.com/LLNL/mpiP), which wraps every MPI function,
# one-sided ones included, and gathers a report over MPI_COMM_WORLD in its MPI_Finalize.
# tests/link/pmpi_tool.sh checks the link orders with a 10-line tool in CI; this runs the real one, by hand,
# as a site loads it (LD_PRELOAD), on both MPIs and across simulated hosts (doc/user-guide.md, "Using armci-x
# with MPI tools").  mpiP is not a Debian package and is not vendored: fetch its source and give its path.
#
#   tools/mpip-check.sh --mpip-src DIR [--mpi mpich|openmpi] [--build DIR] [--hosts] [--extra LABEL:NP:PROGRAM]...
#     --mpip-src DIR   mpiP's source tree; built once per MPI into DIR/../mpiP-<mpi>-install (python3 needed)
#     --mpip PREFIX    an installed mpiP (PREFIX/lib/libmpiP.so) instead
#     --mpi M          mpich (default) or openmpi; --build must be an armci-x build for that MPI
#     --build DIR      armci-x build directory (default ./build) with `make check-programs` done
#     --hosts          also run the cases across 2 simulated hosts (tools/simhosts.sh; root)
#     --extra L:N:P    one more program P at N ranks under mpiP, labelled L (e.g. GA's own test.x)
#
# Each case passes when the program exits 0, mpiP stored exactly one report, the report lists one task per
# MPI process, and its call sites include the MPI calls the case must reach (the program's windows, and the
# one-sided calls themselves where armci-x goes through MPI).  Closing line: "N passed, N failed".
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
mpi=mpich build="$repo/build" hosts=0 mpip="" src="" extras=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mpip-src) src="$2"; shift 2 ;;
    --mpip) mpip="$2"; shift 2 ;;
    --mpi) mpi="$2"; shift 2 ;;
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --hosts) hosts=1; shift ;;
    --extra) extras+=("$2"); shift 2 ;;
    *) echo "mpip-check: unknown argument '$1' (see the top of $0)" >&2; exit 2 ;;
  esac
done
case "$mpi" in mpich|openmpi) ;; *) echo "mpip-check: --mpi must be mpich or openmpi" >&2; exit 2 ;; esac

if [ -z "$mpip" ]; then
  [ -n "$src" ] && [ -f "$src/configure" ] || { echo "mpip-check: give --mpip-src (mpiP's source) or --mpip" >&2; exit 2; }
  src="$(cd "$src" && pwd)"
  mpip="$(dirname "$src")/mpiP-$mpi-install"
  if [ ! -f "$mpip/lib/libmpiP.so" ]; then
    work="$(dirname "$src")/mpiP-$mpi-build"
    rm -rf "$work" && cp -a "$src" "$work" || exit 2
    echo "== building mpiP for $mpi in $work"
    # mpiP's wrapper generator writes $LOGNAME into a header; libunwind and binutils' libbfd only add
    # source lines to call sites; mpiP 3.5.0's MPI_Pready_list lacks the const MPICH 4.2's mpi.h gives it
    # (partitioned communication: nothing here uses it).
    ( cd "$work" && export LOGNAME="${LOGNAME:-$(id -un)}" &&
      ./configure CC="mpicc.$mpi" CXX="mpicxx.$mpi" F77="mpif77.$mpi" FC="mpif90.$mpi" \
        --disable-libunwind --disable-bfd --disable-mpi-partitioned --prefix="$mpip" && make -j2 && make install ) >"$work.log" 2>&1 ||
      { echo "mpip-check: building mpiP failed (log: $work.log)" >&2; tail -20 "$work.log" >&2; exit 2; }
  fi
fi
lib="$mpip/lib/libmpiP.so"
[ -f "$lib" ] || { echo "mpip-check: no $lib" >&2; exit 2; }
wrap="$build/src/.libs/libarmcix-mpiwrap.so"
[ -f "$wrap" ] && [ -x "$build/tests/classic/armci_test" ] ||
  { echo "mpip-check: $build has no libarmcix-mpiwrap.so or test programs (make check-programs)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1

passed=0 failed=0
# run_case LABEL NP HOSTS(0|2) "CALLS-REGEX" "ENV ..." PROGRAM [ARGS...]
run_case() {
  local label="$1" np="$2" nh="$3" want="$4" envs="$5"; shift 5
  local dir rc launch=() e t0=$SECONDS
  dir="$(mktemp -d "${TMPDIR:-/tmp}/mpip-check.XXXXXX")"
  if [ "$nh" -gt 0 ]; then
    launch=("$repo/tools/simhosts.sh" --mpi "$mpi" --hosts "$nh" --timeout 300)
    for e in $envs; do launch+=(--env "$e"); done
  elif [ "$mpi" = mpich ]; then
    launch=(timeout 300 mpiexec.mpich)
    for e in $envs; do launch+=(-env "${e%%=*}" "${e#*=}"); done
  else
    launch=(timeout 300 mpiexec.openmpi --allow-run-as-root --oversubscribe)
    for e in $envs; do launch+=(-x "$e"); done
  fi
  ( cd "$dir" && "${launch[@]}" -n "$np" "$@" ) >"$dir/out.txt" 2>&1
  rc=$?
  local reports=() r tasks why=""
  mapfile -t reports < <(find "$dir" -maxdepth 1 -name '*.mpiP')
  r="${reports[0]:-}"
  if [ "$rc" -ne 0 ]; then why="exit status $rc"
  elif [ "${#reports[@]}" -ne 1 ]; then why="${#reports[@]} mpiP reports, want 1"
  else
    tasks=$(grep -c '^@ MPI Task Assignment' "$r")
    if [ "$tasks" -ne "$np" ]; then why="the report lists $tasks tasks, want $np"
    else
      local call
      for call in $want; do
        grep -Eq "^ *[0-9]+ +[0-9]+ +.* ${call}\$" "$r" || why="${why:+$why; }no call site of MPI_$call"
      done
    fi
  fi
  if [ -z "$why" ]; then
    echo "PASS  $label (np $np, $((SECONDS - t0)) s; report $(basename "$r"))"
    passed=$((passed + 1)); rm -rf "$dir"
  else
    echo "FAIL  $label: $why (kept in $dir)"; tail -15 "$dir/out.txt" | sed 's/^/    | /'
    failed=$((failed + 1))
  fi
}

t="$build/tests"
layouts=(0); [ "$hosts" = 1 ] && layouts+=(2)
skipped=0
for nh in "${layouts[@]}"; do
  sfx=""; [ "$nh" -gt 0 ] && sfx=" across $nh hosts"
  # Open MPI's path makes its windows with MPI_Win_allocate, MPICH's with MPI_Win_create.
  rma="Win_allocate_shared"; [ "$nh" -gt 0 ] && rma="Win_allocate_shared Win_(create|allocate) Put Get Accumulate"
  # The tool preloaded, the wrappers linked (the test programs link them): the tool ahead of them.
  run_case "classic armci_test, mpiP preloaded$sfx" 4 "$nh" "$rma Barrier" "LD_PRELOAD=$lib" "$t/classic/armci_test"
  run_case "classic armci_test through MPI (ARMCI_SHM=0), mpiP preloaded$sfx" 4 "$nh" \
    "Win_(create|allocate) Put Get Accumulate Win_flush" "LD_PRELOAD=$lib ARMCI_SHM=0" "$t/classic/armci_test"
  run_case "GA program (Debian's GA), mpiP preloaded$sfx" 4 "$nh" "$rma" "LD_PRELOAD=$lib" "$t/ga/ga_core"
  run_case "GA NGA test, mpiP preloaded$sfx" 4 "$nh" "$rma" "LD_PRELOAD=$lib" "$t/gasuite/ngatest" 4
  # The wrappers first, the tool behind them: every feature kept.  Progress ranks: the tool's report
  # covers every MPI process (program ranks and progress ranks), gathered in its MPI_Finalize.
  # (Progress ranks serve the program ranks' memory from dynamic windows.)  Not on Open MPI between hosts,
  # where osc ucx has no asynchronous progress that works: progress ranks hang (5.0.7) or crash (4.1), and a
  # progress thread polling MPI makes UCX abort (doc/user-guide.md, "Known MPI problems on Debian 13").
  if [ "$mpi" = openmpi ] && [ "$nh" -gt 0 ]; then
    echo "SKIP  armci_test, progress ranks, LD_PRELOAD=wrappers:mpiP$sfx (Open MPI between hosts)"
    skipped=$((skipped + 1))
  else
    run_case "armci_test, progress ranks, LD_PRELOAD=wrappers:mpiP$sfx" 4 "$nh" "Win_create_dynamic Put Get Accumulate" \
      "LD_PRELOAD=$wrap:$lib ARMCI_PROGRESS_RANKS=1 ARMCI_NODE_SIZE=2" "$t/classic/armci_test"
  fi
  run_case "GA program, ARMCI_PROFILE=1 and yielding waits, LD_PRELOAD=wrappers:mpiP$sfx" 4 "$nh" "$rma" \
    "LD_PRELOAD=$wrap:$lib ARMCI_PROFILE=1 ARMCI_MPI_YIELD=1" "$t/ga/ga_core"
  for x in "${extras[@]}"; do
    read -r -a cmd <<<"$(cut -d: -f3- <<<"$x")"
    run_case "${x%%:*}, mpiP preloaded$sfx" "$(cut -d: -f2 <<<"$x")" "$nh" "Win_allocate_shared" "LD_PRELOAD=$lib" "${cmd[@]}"
  done
done
[ "$skipped" -eq 0 ] || echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
