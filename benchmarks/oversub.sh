#!/bin/bash
# Oversubscribed runs of the GA suite's programs (issue 18): wall time at 2 ranks (dedicated cores on a
# 2-core machine) and at more ranks than cores, alternating the rank counts in every round, medians, and
# the ratio to the 2-rank time.  NWChem's share of the same question is tools/nwchem/run-ccsdt --ranks.
#
#   benchmarks/oversub.sh [--build DIR] [--ranks 2,4,8] [--rounds 3] [--programs "ngatest ghosts ..."]
#                         [--env "VAR=value ..."]
#
# DIR is a build directory with the check programs built (make -f ... build-check-programs, or
# tools/build.sh); default ./build of the repository.  Each run is timed around mpiexec.mpich (process
# start and MPI_Init included, as a user sees it).  A run that fails is shown as "!" and left out of the
# median.  Prints the machine's load at the start, since on a shared machine the times say little alone.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build="$here/build"
ranks="2,4,8"
rounds=3
programs="ngatest ghosts mirror nbtest patchmat pgtest"
extra_env=""
mpiexec=${MPIEXEC:-mpiexec.mpich}

while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --env) extra_env=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "oversub.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

IFS=, read -r -a rank_list <<< "$ranks"
for p in $programs; do
  [ -x "$build/tests/gasuite/$p" ] || { echo "oversub.sh: $build/tests/gasuite/$p is not built" >&2; exit 2; }
done

declare -A times
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# build: $build; rounds: $rounds; env: ${extra_env:-(none)}"
for ((round = 1; round <= rounds; round++)); do
  for p in $programs; do
    for n in "${rank_list[@]}"; do
      start=$(date +%s.%N)
      if env $extra_env timeout 300 "$mpiexec" -n "$n" "$build/tests/gasuite/$p" > "$tmp/out" 2>&1; then
        t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.3f", b - a}')
      else
        t="!"
      fi
      times[$p,$n]="${times[$p,$n]:-} $t"
    done
  done
done

median() { tr ' ' '\n' | grep -v '^!*$' | sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.2f", a[int((NR+1)/2)]; else printf "!"}'; }

printf "| program |"; for n in "${rank_list[@]}"; do printf " %s ranks s |" "$n"; done
for n in "${rank_list[@]:1}"; do printf " %s / %s |" "$n" "${rank_list[0]}"; done; echo
printf "|---|"; for n in "${rank_list[@]}"; do printf -- "---:|"; done; for n in "${rank_list[@]:1}"; do printf -- "---:|"; done; echo
for p in $programs; do
  printf "| %s |" "$p"
  declare -A med=()
  for n in "${rank_list[@]}"; do
    med[$n]=$(echo "${times[$p,$n]}" | median)
    runs=$(echo "${times[$p,$n]}" | tr ' ' '\n' | grep -v '^$' | awk '{printf "%s%s", (NR > 1 ? "/" : ""), ($1 == "!" ? "!" : sprintf("%.2f", $1))}')
    printf " %s (%s) |" "${med[$n]}" "$runs"
  done
  base=${med[${rank_list[0]}]}
  for n in "${rank_list[@]:1}"; do
    if [ "$base" != "!" ] && [ "${med[$n]}" != "!" ]; then
      printf " %s |" "$(awk -v a="${med[$n]}" -v b="$base" 'BEGIN {printf "%.1f", a / b}')"
    else
      printf " ! |"
    fi
  done
  echo
done
