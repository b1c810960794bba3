#!/usr/bin/env bash
# Builds the classic test programs against Debian's ARMCI-MPI 0.3.1 (-larmci-mpich, MPICH) and runs the
# lines of tests/classic/manifest.txt with it, so that a failure of armci-x can be classified as "ours
# only" or "both".  ARMCI-MPI needs ARMCI_USE_WIN_ALLOCATE=0 on Debian's MPICH 4.0.2 (MPICH issue 6110).
# Programs are built with -DCLASSIC_ARMCI_MPI (leaves out calls ARMCI-MPI does not implement) and run with
# CLASSIC_BASELINE=1 (skips checks of behaviour ARMCI-MPI 0.3.1 does not have: a non-blocking trylock, the
# all-zero-size allocation).  armci-x variables (ARMCI_NODE_SIZE, ARMCI_SHM) in a line are ignored by
# ARMCI-MPI, so such lines repeat the plain run.
#
# Usage: tests/classic/run-against-armci-mpi.sh [--filter REGEX] [--outdir DIR]
# Closing line: "N passed, N failed".
set -u
here="$(cd "$(dirname "$0")" && pwd)"
outdir=/tmp/armci-mpi-classic
filter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) filter="$2"; shift 2 ;;
    --outdir) outdir="$2"; shift 2 ;;
    *) echo "usage: $0 [--filter REGEX] [--outdir DIR]" >&2; exit 2 ;;
  esac
done
CC="${MPICC:-mpicc.mpich}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
mkdir -p "$outdir/bin" "$outdir/logs"

passed=0 failed=0 failures=()
declare -A built
while read -r name np tmo rest; do
  case "$name" in ''|\#*) continue ;; esac
  id="$name.np$np"
  if [ -n "$filter" ] && ! [[ "$id" =~ $filter ]]; then continue; fi
  read -r -a words <<< "$rest"
  envs=()
  while [ ${#words[@]} -gt 0 ] && [[ "${words[0]}" == *=* ]]; do envs+=("${words[0]}"); words=("${words[@]:1}"); done
  prog="$(basename "${words[0]}")"
  exe="$outdir/bin/$prog"
  if [ -z "${built[$prog]:-}" ]; then
    if ! "$CC" -O1 -g -Wall -Wextra -DCLASSIC_ARMCI_MPI -I/usr/include "$here/$prog.c" -larmci-mpich -lm -o "$exe" \
         > "$outdir/logs/$prog.build.log" 2>&1; then
      echo "BUILD FAIL $prog (see $outdir/logs/$prog.build.log)"
    fi
    built[$prog]=1
  fi
  log="$outdir/logs/$id.log"
  start=$(date +%s%N)
  env ${envs[@]+"${envs[@]}"} ARMCI_USE_WIN_ALLOCATE="${ARMCI_USE_WIN_ALLOCATE:-0}" CLASSIC_BASELINE=1 \
    timeout --kill-after=10 "$tmo" "$MPIEXEC" -n "$np" "$exe" < /dev/null > "$log" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 )); secs="$((ms / 1000)).$(( (ms % 1000) / 100 ))"
  if [ $rc -eq 0 ]; then
    printf 'PASS  %-40s %6ss\n' "$id" "$secs"; passed=$((passed + 1))
  else
    why="exit $rc"; [ $rc -eq 124 ] && why="timeout ${tmo}s"
    printf 'FAIL  %-40s %6ss  (%s; %s)\n' "$id" "$secs" "$why" "$log"; failed=$((failed + 1)); failures+=("$id")
  fi
done < "$here/manifest.txt"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
