#!/usr/bin/env bash
# Runs the test suite listed in tests/manifest.txt and the fragments tests/*/manifest.txt (a directory's
# own programs, e.g. tests/gasuite, tests/classic): each line is
#     name  np  timeout_seconds  [VAR=value ...] program [args ...]
# np = 0 runs the program directly, otherwise under "$MPIEXEC -n np".  Every run is bounded by `timeout`,
# so a deadlock fails instead of hanging CI.  A program path is looked up in the build tree, then in the
# source tree.  Output of each run goes to tests/logs/<name>.np<np>.log (printed when it fails).
#
# Usage: tests/check.sh [--filter REGEX] [--exclude REGEX] [--list] [--valgrind] [--manifest FILE]
#                        [--hosts HxK] [--cliques K|odd-even]
#   --manifest  read only this file (instead of tests/manifest.txt and tests/*/manifest.txt)
#   --valgrind  run the MPI programs of the selected lines under valgrind memcheck (errors fail the run)
#   --hosts HxK run every selected MPI line on H simulated hosts x K ranks (tools/simhosts.sh: network
#               namespaces, needs root, else the lines are skipped; launched with the build's MPI, MPICH's
#               Hydra or Open MPI's mpirun); np becomes H*K, np-0 lines are skipped
#   --cliques   MPICH splits the machine into K nodes itself (MPIR_CVAR_NUM_CLIQUES=K: ranks dealt
#               round-robin) or into odd and even ranks (MPIR_CVAR_ODD_EVEN_CLIQUES=1); no root needed
# With --hosts or --cliques the run ids (and logs) carry the layout: core.np4@2x2, core.np4@cliques2.
# Closing line: "N passed, N failed" (plus ", N skipped").
set -u
here="$(cd "$(dirname "$0")" && pwd)"
sim_seq=0  # numbers the simulated-host runs of this check.sh, so that no two share interface names
builddir="${ARMCIX_BUILDDIR:-$(pwd)}"
[ -f "$builddir/tests/env.sh" ] || builddir="$(cd "$here/.." && pwd)"
if [ ! -f "$builddir/tests/env.sh" ]; then
  echo "check.sh: no tests/env.sh in $builddir: run configure first (or set ARMCIX_BUILDDIR)" >&2
  exit 2
fi
# shellcheck disable=SC1091
. "$builddir/tests/env.sh"
export MPIEXEC MPICC top_srcdir top_builddir GA_LIB
# tools/simhosts.sh launches with the build's MPI (Hydra for MPICH, mpirun for Open MPI).  An env.sh from
# before MPI_FLAVOR existed is MPICH's unless its launcher is Open MPI's.
if [ -z "${MPI_FLAVOR:-}" ]; then case "$MPIEXEC" in *openmpi*|*orterun*) MPI_FLAVOR=openmpi ;; *) MPI_FLAVOR=mpich ;; esac; fi
[ "$MPI_FLAVOR" = openmpi ] || MPI_FLAVOR=mpich
# Open MPI 5's launcher names its session directory after its pid (TMPDIR/prterun.<host>.<pid>.0) and fails
# with "prte_session_dir failed ... Exists" when a launcher killed earlier (a timeout, a fault test) left one
# of that name: with pid_max 32768 the pids of a long test day come round again (seen in CI: a directory left
# at 17:29 by another run failed a launch at 22:56).  Each suite's launchers get a directory of their own,
# removed at the end (Open MPI 4's orterun keeps its sessions there too).
if [ "$MPI_FLAVOR" = openmpi ]; then
  TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/armcix-ompi.XXXXXX")" && export TMPDIR
  trap 'rm -rf "$TMPDIR"' EXIT
fi
export ARMCIX_BUILDDIR="$builddir"
manifests=("$here/manifest.txt" "$here"/*/manifest.txt)
filter="" exclude="" list=0 valgrind=0 hosts="" cliques="" layout=""
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) filter="$2"; shift 2 ;;
    --exclude) exclude="$2"; shift 2 ;;
    --list) list=1; shift ;;
    --valgrind) valgrind=1; shift ;;
    --manifest) manifests=("$2"); shift 2 ;;
    --hosts) hosts="$2"; shift 2 ;;
    --cliques) cliques="$2"; shift 2 ;;
    *) echo "check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$hosts" ]; then
  if ! [[ "$hosts" =~ ^([1-9])x([1-9])$ ]]; then echo "check.sh: --hosts wants HxK, e.g. 2x2" >&2; exit 2; fi
  sim_hosts="${BASH_REMATCH[1]}" sim_np=$((BASH_REMATCH[1] * BASH_REMATCH[2])) layout="@$hosts"
fi
case "$cliques" in
  '') ;;
  odd-even) export MPIR_CVAR_ODD_EVEN_CLIQUES=1; layout="$layout@cliques-odd-even" ;;
  [1-9]) export MPIR_CVAR_NUM_CLIQUES="$cliques"; layout="$layout@cliques$cliques" ;;
  *) echo "check.sh: --cliques wants a node count 1-9 or odd-even" >&2; exit 2 ;;
esac
logdir="$builddir/tests/logs"
mkdir -p "$logdir"
vg_cmd=(valgrind -q --error-exitcode=97 --leak-check=no "--suppressions=$top_srcdir/tests/valgrind.supp")

passed=0 failed=0 skipped=0 failures=()
while read -r name np tmo rest; do
  case "$name" in ''|\#*) continue ;; esac
  id="$name.np$np"
  if [ -n "$filter" ] && ! [[ "$id" =~ $filter ]]; then continue; fi
  if [ -n "$exclude" ] && [[ "$id" =~ $exclude ]]; then continue; fi
  if [ -n "$hosts" ]; then
    if [ "$np" = 0 ]; then
      if [ "$list" = 0 ]; then printf 'SKIP  %-40s (not an mpiexec line: no --hosts)\n' "$id$layout"; fi
      skipped=$((skipped + 1)); continue
    fi
    np=$sim_np
  fi
  id="$name.np$np$layout"
  read -r -a words <<< "$rest"
  envs=()
  while [ ${#words[@]} -gt 0 ] && [[ "${words[0]}" == *=* ]]; do envs+=("${words[0]}"); words=("${words[@]:1}"); done
  prog="${words[0]}"; args=("${words[@]:1}")
  if [ -e "$builddir/$prog" ]; then prog="$builddir/$prog"
  elif [ -e "$top_srcdir/$prog" ]; then prog="$top_srcdir/$prog"
  else
    if [ "$list" = 0 ]; then printf 'SKIP  %-40s (%s not built)\n' "$id" "${words[0]}"; fi
    skipped=$((skipped + 1)); continue
  fi
  if [ "$list" = 1 ]; then echo "$id: ${envs[*]} $prog ${args[*]}"; continue; fi
  log="$logdir/$id.log"
  start=$(date +%s%N)
  if [ "$np" = 0 ]; then
    cmd=("$prog" "${args[@]}")
  elif [ "$valgrind" = 1 ]; then
    # A program linked against the uninstalled shared library is a libtool wrapper script: valgrind must
    # run the real binary (libtool --mode=execute swaps it in and sets the library path), or it would
    # check the shell instead.
    lt=()
    if [ "$(head -c 2 "$prog")" = '#!' ] && [ -x "$builddir/libtool" ]; then lt=("$builddir/libtool" --mode=execute); fi
    # shellcheck disable=SC2206
    cmd=($MPIEXEC -n "$np" ${lt[@]+"${lt[@]}"} "${vg_cmd[@]}" "$prog" "${args[@]}")
  elif [ -n "$hosts" ]; then
    # simhosts.sh ends the job itself a little before check.sh's timeout, so that it tears down in time.
    cmd=("$top_srcdir/tools/simhosts.sh" --mpi "$MPI_FLAVOR" --hosts "$sim_hosts" --prefix "c$(($$ % 100000))$((sim_seq++ % 100))" --timeout "$((tmo > 20 ? tmo - 10 : tmo))"
         -n "$np" "$prog" "${args[@]}")
  else
    # shellcheck disable=SC2206
    cmd=($MPIEXEC -n "$np" "$prog" "${args[@]}")
  fi
  rm -f "$log.stacks"
  env ${envs[@]+"${envs[@]}"} ARMCIX_TEST_NP="$np" ${sim_hosts:+ARMCIX_TEST_HOSTS="$sim_hosts"} timeout --kill-after=10 "$tmo" "${cmd[@]}" < /dev/null > "$log" 2>&1 &
  run=$!
  # Shortly before the timeout (and before simhosts.sh ends its job at tmo - 10), the stacks of whatever is
  # still running, so that an intermittent hang in CI leaves more than "TIMEOUT" behind.
  ( sleep $((tmo > 40 ? tmo - 15 : tmo * 2 / 3)); kill -0 $run 2>/dev/null &&
      "$top_srcdir/tools/dump-stacks.sh" "$run" > "$log.stacks" 2>&1 ) 2>/dev/null &
  stacks=$!
  wait $run
  rc=$?
  # The watcher's sleep first: a subshell waiting for a foreground child acts on a signal only once the
  # child has ended, so killing the subshell alone would keep this loop waiting out the sleep.
  pkill -P $stacks 2>/dev/null; kill $stacks 2>/dev/null; wait $stacks 2>/dev/null
  ms=$(( ($(date +%s%N) - start) / 1000000 )); secs="$((ms / 1000)).$(( (ms % 1000) / 100 ))"
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q '^\[verdict\] all ranks passed' "$log" &&
     grep -q 'MPI_Finalize did not return' "$log"; then
    # Every rank passed and ARMCI_Finalize returned; then MPI_Finalize hung (MPICH 4.0.2 + UCX tcp, not
    # armci-x: tools/repro/mpi-finalize-hang.c) and the test main's watchdog ended the ranks, which Hydra may
    # report as a bad termination.
    printf 'PASS  %-40s %6ss  (MPI_Finalize hung after the verdict; see doc/user-guide.md)\n' "$id" "$secs"
    passed=$((passed + 1))
  elif [ $rc -eq 0 ]; then
    printf 'PASS  %-40s %6ss\n' "$id" "$secs"; passed=$((passed + 1))
  elif [ $rc -eq 77 ] && grep -qE '^(simhosts: )?SKIP' "$log"; then
    # Exit 77 with a SKIP line: the line cannot run here (simulated hosts or a script that needs root, a
    # script whose tool is missing: tests/link/cmake_consumer.sh without cmake).
    printf 'SKIP  %-40s (%s)
' "$id" "$(grep -m1 -E '^(simhosts: )?SKIP' "$log")"; skipped=$((skipped + 1))
  else
    why="exit $rc"; [ $rc -eq 124 ] && why="TIMEOUT after ${tmo}s"
    printf 'FAIL  %-40s %6ss  (%s)  env: %s\n' "$id" "$secs" "$why" "${envs[*]:-}"
    tail -n 40 "$log" | sed 's/^/    | /'
    if [ -s "$log.stacks" ]; then
      echo "    stacks shortly before the timeout ($log.stacks):"
      head -n 200 "$log.stacks" | sed 's/^/    | /'
    fi
    cp "$log" "$log.failed.$(date +%H%M%S)"  # a rerun overwrites $log; keep what the failure printed
    failed=$((failed + 1)); failures+=("$id")
  fi
done < <(cat "${manifests[@]}")
[ "$list" = 1 ] && exit 0
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
if [ $skipped -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
[ $failed -eq 0 ]
