#!/bin/bash
# Build the GA test-suite re-creations (tests/gasuite) against Debian's ARMCI-MPI 0.3.1 (-larmci-mpich)
# and run every line of tests/gasuite/manifest.txt on it (ARMCI_USE_WIN_ALLOCATE=0, which ARMCI-MPI
# needs on MPICH 4.0.2), next to the same line on armci-x, so that each failure can be classified as
# "ours only" or "both" (a GA restriction or a shared problem).
#
# usage: tests/gasuite/run-against-armci-mpi.sh [--builddir DIR] [--out DIR] [--filter REGEX] [--no-ours]
#   --builddir  configured armci-x build tree whose check-programs are built (default: $ARMCIX_BUILDDIR,
#               else the current directory); its programs give the "ours" column
#   --out       where the ARMCI-MPI builds and logs go (default: /tmp/gasuite-armci-mpi)
#   --filter    only manifest lines whose name.npN matches REGEX
#   --no-ours   run ARMCI-MPI only
# Lines that set armci-x-only variables (ARMCI_SHM, ARMCI_NODE_SIZE, ...) have no ARMCI-MPI equivalent
# and are shown as "n/a" in that column.
# Prints one line per run and a closing summary; exits non-zero if any run fails on armci-x only.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
top="$(cd "$here/../.." && pwd)"
builddir="${ARMCIX_BUILDDIR:-$(pwd)}"
out=/tmp/gasuite-armci-mpi filter="" ours=1
while [ $# -gt 0 ]; do
  case "$1" in
    --builddir) builddir="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --no-ours) ours=0; shift ;;
    *) echo "run-against-armci-mpi.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
builddir="$(cd "$builddir" 2>/dev/null && pwd)" || { echo "no build directory" >&2; exit 2; }
MPICC="${MPICC:-mpicc.mpich}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
GA_LIB="${GA_LIB:-/usr/lib/x86_64-linux-gnu/libga-mpich.a}"
SCALAPACK=/usr/lib/x86_64-linux-gnu/libscalapack-mpich.so.2.2
[ -e "$SCALAPACK" ] || SCALAPACK=-lscalapack-mpich
export MPIEXEC GA_LIB
mkdir -p "$out/tests/gasuite" "$out/logs" || exit 1

echo "building tests/gasuite against ARMCI-MPI (-larmci-mpich) into $out"
for src in "$here"/*.c; do
  name=$(basename "$src" .c)
  # shellcheck disable=SC2086
  if ! $MPICC -O2 -g -Wall -Wextra -I"$here" -I"$top/tests/ga" "$src" -o "$out/tests/gasuite/$name" \
      "$GA_LIB" -larmci-mpich $SCALAPACK -llapack -lblas -lgfortran -lm; then
    echo "  FAILED to build $name against ARMCI-MPI" >&2
  fi
done
ARMCIX_BUILDDIR="$out" "$here/build-fortran.sh" --lib -larmci-mpich --out "$out/tests/gasuite" ||
  echo "  FAILED to build testf against ARMCI-MPI" >&2

# run one manifest line; $1 = "ours" | "mpi"; sets $res
run_one() {
  local which=$1 log rc prog
  local -a cmd env_run
  log="$out/logs/$id.$which.log"
  if [ "$which" = mpi ]; then
    env_run=(ARMCI_USE_WIN_ALLOCATE=0 "${envs[@]+"${envs[@]}"}")
    base="$out"
  else
    env_run=("${envs[@]+"${envs[@]}"}")
    base="$builddir"
  fi
  prog="${words[0]}"
  if [ "$np" = 0 ]; then
    # build-fortran.sh: --lib/--out select the library; the environment goes after --run NP
    local -a a=("${words[@]:1}")
    if [ "$which" = mpi ]; then
      cmd=("$here/build-fortran.sh" --lib -larmci-mpich --out "$out/tests/gasuite" "${a[@]}" ARMCI_USE_WIN_ALLOCATE=0)
    else
      cmd=("$here/build-fortran.sh" "${a[@]}")
    fi
    env_run=()
  else
    [ -x "$base/$prog" ] || { res="not-built"; return; }
    # shellcheck disable=SC2206
    cmd=($MPIEXEC -n "$np" "$base/$prog" "${words[@]:1}")
  fi
  ARMCIX_BUILDDIR="$builddir" env ${env_run[@]+"${env_run[@]}"} timeout --kill-after=10 "$tmo" "${cmd[@]}" \
    < /dev/null > "$log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then res=PASS
  elif [ $rc -eq 124 ]; then res=TIMEOUT
  else
    res="FAIL($rc)"
    local nf
    nf=$(grep -c '^FAIL:' "$log")
    [ "$nf" -gt 0 ] && res="FAIL($nf checks)"
    grep -q 'Segmentation fault\|signal 11\|double free\|corrupted' "$log" && res="CRASH"
    grep -q 'ARMCI Error\|ARMCI assert' "$log" && [ "$nf" -eq 0 ] && res="ABORT"
  fi
}

n_ours_only=0 n_both=0 n_mpi_only=0 n_ok=0
printf '%-34s %-18s %-18s %s\n' "run" "armci-x" "ARMCI-MPI" "classification"
while read -r name np tmo rest; do
  case "$name" in ''|\#*) continue ;; esac
  id="$name.np$np"
  if [ -n "$filter" ] && ! [[ "$id" =~ $filter ]]; then continue; fi
  read -r -a words <<< "$rest"
  envs=()
  while [ ${#words[@]} -gt 0 ] && [[ "${words[0]}" == *=* ]]; do envs+=("${words[0]}"); words=("${words[@]:1}"); done
  portable=1
  for w in "${envs[@]+"${envs[@]}"}" "${words[@]}"; do
    case "$w" in ARMCI_*=*|ARMCIX_*=*) portable=0 ;; esac
  done
  r_ours="-"
  if [ "$ours" = 1 ]; then run_one ours; r_ours=$res; fi
  r_mpi="n/a"
  if [ "$portable" = 1 ]; then run_one mpi; r_mpi=$res; fi
  cls=""
  if [ "$r_ours" != PASS ] && [ "$r_ours" != "-" ]; then
    if [ "$r_mpi" = PASS ]; then cls="OURS ONLY"; n_ours_only=$((n_ours_only + 1))
    elif [ "$r_mpi" = "n/a" ]; then cls="ours (no ARMCI-MPI equivalent)"; n_ours_only=$((n_ours_only + 1))
    else cls="both"; n_both=$((n_both + 1)); fi
  elif [ "$r_mpi" != PASS ] && [ "$r_mpi" != "n/a" ]; then
    cls="ARMCI-MPI only"; n_mpi_only=$((n_mpi_only + 1))
  else
    n_ok=$((n_ok + 1))
  fi
  printf '%-34s %-18s %-18s %s\n' "$id" "$r_ours" "$r_mpi" "$cls"
done < "$here/manifest.txt"
echo "logs in $out/logs"
echo "$n_ok clean, $n_ours_only armci-x only, $n_both both, $n_mpi_only ARMCI-MPI only"
[ "$n_ours_only" -eq 0 ]
