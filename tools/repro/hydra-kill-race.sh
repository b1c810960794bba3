#!/usr/bin/env bash
# Runs tools/repro/hydra-kill-race.c RUNS times (default 12) on 2 simulated hosts x 2 ranks (tools/simhosts.sh,
# needs root), kills the last rank 2 s after it is ready, and says how many jobs did not end within 30 s.
# Plain MPI: it tells Hydra's own behaviour from armci-x's (see the comment in hydra-kill-race.c).
#   tools/repro/hydra-kill-race.sh [RUNS]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
runs="${1:-12}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mpicc.mpich -o "$work/hk" "$here/hydra-kill-race.c" || exit 2
echo "hydra-kill-race: $(mpiexec.mpich --version | sed -n 's/^ *Version: *\([0-9.]*\).*/Hydra \1/p'), $runs runs"
hung=0
for i in $(seq "$runs"); do
  log="$work/log.$i"
  "$here/../simhosts.sh" --hosts 2 --prefix "hk$$$i" --timeout 40 -n 4 "$work/hk" >"$log" 2>&1 &
  job=$!
  victim=""
  for _ in $(seq 300); do
    victim="$(sed -n 's/^victim ready (rank [0-9]*, pid \([0-9]*\)).*/\1/p' "$log")"
    [ -n "$victim" ] && break
    sleep 0.1
  done
  [ -n "$victim" ] || { echo "run $i: did not start"; cat "$log"; wait "$job"; exit 2; }
  sleep 2
  start=$(date +%s)
  kill -KILL "$victim"
  wait "$job"
  rc=$?
  took=$(($(date +%s) - start))
  [ "$took" -le 30 ] || hung=$((hung + 1))
  echo "run $i: exit $rc, ended ${took} s after the kill; BAD TERMINATION printed: $(grep -c 'BAD TERMINATION' "$log")"
done
echo "hydra-kill-race: $hung of $runs jobs did not end within 30 s of the kill"
