#!/bin/bash
# The node's memory under an NWChem run, not each rank's: runs BINARY on INPUT (a name from
# tools/nwchem/inputs/) at NP ranks on this machine and samples every rank's /proc/PID/smaps_rollup every
# 0.2 s.  Prints the largest Rss of one rank and the peak of the ranks' summed Pss (proportional set size:
# a shared page is split among the processes that map it), in MiB, and the CCSD(T) energy line.
#
# Why: /usr/bin/time's maximum resident set counts a shared page in every process that touched it.  armci-x
# maps its node peers' slices and reads them with loads, so each rank's Rss includes the slices it read;
# ARMCI-MPI copies them through MPI into private memory.  Summed Pss is what the node holds.
#
#   tools/nwchem/pss-peak.sh [--mpi mpich|openmpi] BINARY INPUT NP
set -u
mpi=mpich
if [ "${1:-}" = --mpi ]; then mpi=$2; shift 2; fi
[ $# -eq 3 ] || { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
bin=$1 inp=$2 np=$3
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$here/inputs/$inp.nw" ] || { echo "pss-peak: no input $here/inputs/$inp.nw" >&2; exit 2; }
case "$mpi" in
  mpich) launch=(mpiexec.mpich -n "$np") ;;
  openmpi) launch=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$np") ;;
  *) echo "pss-peak: --mpi must be mpich or openmpi" >&2; exit 2 ;;
esac
d=$(mktemp -d /tmp/pss-peak.XXXXXX)
trap 'rm -rf "$d"' EXIT
cp "$here/inputs/$inp.nw" "$d/" && cd "$d" || exit 1
# Debian's nwchem.mpich holds ARMCI-MPI, which needs this with MPICH 4 (run-ccsdt sets it too).
export ARMCI_USE_WIN_ALLOCATE=0
"${launch[@]}" "$bin" "$inp.nw" >out.log 2>&1 &
job=$!
max_sum=0 max_rss=0
while kill -0 $job 2>/dev/null; do
  sum=0
  for p in $(pgrep -f "^$bin"); do
    read -r rss pss < <(awk '/^Rss:/ { r = $2 } /^Pss:/ { p = $2 } END { print r + 0, p + 0 }' "/proc/$p/smaps_rollup" 2>/dev/null) || continue
    sum=$((sum + pss))
    [ "$rss" -gt "$max_rss" ] && max_rss=$rss
  done
  [ $sum -gt $max_sum ] && max_sum=$sum
  sleep 0.2
done
wait $job
rc=$?
printf '%s %s np=%s exit=%s: max Rss of a rank %d MiB, peak of summed Pss %d MiB; %s\n' "$(basename "$bin")" "$inp" "$np" \
  "$rc" $((max_rss / 1024)) $((max_sum / 1024)) "$(grep -m1 -E 'Total CCSD\(T\) energy:|CCSD\(T\) total energy / hartree' out.log | tr -s ' ')"
exit $rc
