#!/usr/bin/env bash
# Runs benchmarks/ga_ports.c built against each GA port (tools/ga-ports.sh) alternately, several rounds in one
# run, and prints per operation the median over the rounds of each port's time per call (us, mean over the GA
# ranks) and the ratios armci-x / port (below 1: armci-x takes less time).  Issue 58.
#
#   benchmarks/ga_ports.sh --ports-dir WORK/ports-TAG [options]
#     --ports-dir D   the prefixes tools/ga-ports.sh built (D/PORT/ga-ports.done)
#     --ports "..."   which, in this order (default: those of "armcix mpi-pr mpi-ts mpi3 armci-mpi armci-mpi-*"
#                     built in D; armci-mpi-NAME: a second ARMCI-MPI, tools/ga-ports.sh --armci-mpi-port);
#                     the first is the reference of the ratios.  PORT@N starts that port with N processes (e.g.
#                     armcix@3 beside mpi-pr at --np 2: the same processes per node as MPI-PR's 2 + 1)
#     --np N          GA ranks (default 2)
#     --pr-extra K    MPI-PR starts N + K processes: one progress rank per node (default: --hosts, else 1)
#     --hosts H       run under tools/simhosts.sh --hosts H --own-names (distinct host names and gethostid(),
#                     which ComEx needs to see the hosts; needs root; serialized by flock on
#                     $SIMHOSTS_LOCK, default /tmp/armcix-simhosts.lock, so that runs of others never overlap)
#     --mpi M         mpich or openmpi: the MPI the ports were built with (default: the mpi= line tools/ga-ports.sh
#                     wrote in their ga-ports.done, which must agree, else mpich).  It chooses the compiler for
#                     ga_ports.c (the mpicc= line, else mpicc.M; MPICC overrides), the launcher and
#                     tools/simhosts.sh --mpi M.  Open MPI: pml and osc as simhosts.sh sets them between hosts;
#                     on one node Debian's defaults (osc rdma, btl vader); each run's session files in a
#                     directory of its own (TMPDIR), as tests/check.sh does
#     --launcher CMD  the launcher (default mpiexec.mpich; with --mpi openmpi "mpiexec.openmpi --allow-run-as-root
#                     --oversubscribe"; ignored with --hosts)
#     --env VAR=val   for every run (may repeat; e.g. MPIR_CVAR_NUM_CLIQUES=2)
#     --rounds R      rounds (default 5); each round runs every port once, the order rotating by one port
#     --scale S       ga_ports' SCALE (default 1: about 1-3 s per run on one node)
#     --out DIR       logs (default D/runs/<date-time>); DIR/summary.txt gets the table
#     --timeout S     per run (default 600)
#     --summary-only  only print the tables again from the logs in --out (same --ports; the first lines then show
#                     this call's options, not the run's: DIR/summary.txt keeps the run's)
# Two tables: the median over the rounds, and the minimum over the rounds (where the load of other jobs makes
# an operation that needs the target's CPU wait for a time slice, the minimum is what the path itself costs).
# The machine's load (uptime) is recorded before every run, in the log and the summary.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
summary_only=0 dir="" ports="" np=2 pr_extra="" hosts="" launcher="" mpi="" envs=() rounds=5 scale=1 out="" tmo=600
while [ $# -gt 0 ]; do
  case "$1" in
    --ports-dir) dir="$2"; shift 2 ;;
    --ports) ports="$2"; shift 2 ;;
    --np) np="$2"; shift 2 ;;
    --pr-extra) pr_extra="$2"; shift 2 ;;
    --hosts) hosts="$2"; shift 2 ;;
    --launcher) launcher="$2"; shift 2 ;;
    --mpi) mpi="$2"; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --scale) scale="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --timeout) tmo="$2"; shift 2 ;;
    --summary-only) summary_only=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ga_ports: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] && [ -d "$dir" ] || { echo "ga_ports: --ports-dir DIR (tools/ga-ports.sh's WORK/ports-TAG) is required" >&2; exit 2; }
dir="$(cd "$dir" && pwd)"
if [ -z "$ports" ]; then
  for p in armcix mpi-pr mpi-ts mpi3 armci-mpi $(cd "$dir" && ls -d armci-mpi-?* 2>/dev/null); do
    [ -f "$dir/$p/ga-ports.done" ] && ports+="${ports:+ }$p"
  done
fi
[ -n "$ports" ] || { echo "ga_ports: no port built in $dir (tools/ga-ports.sh)" >&2; exit 2; }
[ -n "$pr_extra" ] || pr_extra="${hosts:-1}"
# The ports' MPI: what their builds recorded (prefixes from before --mpi existed are MPICH's).
if [ -z "$mpi" ]; then
  for e in $ports; do
    m="$(sed -n 's/^mpi=//p' "$dir/${e%@*}/ga-ports.done" 2>/dev/null)"
    m="${m:-mpich}"
    [ -z "$mpi" ] || [ "$mpi" = "$m" ] ||
      { echo "ga_ports: the ports were built with different MPIs ($mpi, $m): choose ports of one, or --mpi" >&2; exit 2; }
    mpi="$m"
  done
fi
case "$mpi" in
  mpich) : "${launcher:=mpiexec.mpich}" ;;
  openmpi) : "${launcher:=mpiexec.openmpi --allow-run-as-root --oversubscribe}" ;;
  *) echo "ga_ports: --mpi takes mpich or openmpi, not '$mpi'" >&2; exit 2 ;;
esac
out="${out:-$dir/runs/$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

if [ "$summary_only" = 0 ]; then
# Build ga_ports.c against each port, with the flags and libraries its build recorded.
for p in $(for e in $ports; do echo "${e%@*}"; done | sort -u); do
  done_file="$dir/$p/ga-ports.done"
  [ -f "$done_file" ] || { echo "ga_ports: port $p is not built ($done_file missing)" >&2; exit 2; }
  cflags="$(sed -n 's/^cflags=//p' "$done_file")" libs="$(sed -n 's/^libs=//p' "$done_file")"
  cc="${MPICC:-$(sed -n 's/^mpicc=//p' "$done_file")}"
  cc="${cc:-mpicc.$mpi}"
  rpath=""
  for l in $libs; do case "$l" in -L*) rpath+=" -Wl,-rpath,${l#-L}" ;; esac; done
  bin="$dir/$p/bin/ga_ports"
  if [ ! -x "$bin" ] || [ "$repo/benchmarks/ga_ports.c" -nt "$bin" ]; then
    # shellcheck disable=SC2086 # flag lists
    $cc $cflags -I"$dir/$p/include" -o "$bin" "$repo/benchmarks/ga_ports.c" -L"$dir/$p/lib" $rpath $libs -llapack -lblas -lm ||
      { echo "ga_ports: building ga_ports against $p failed" >&2; exit 1; }
  fi
done

fi
if [ "$mpi" = openmpi ] && [ "$summary_only" = 0 ]; then
  # Open MPI's launchers keep their session directories under TMPDIR: one for this run, removed at the end.
  TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/armcix-ompi.XXXXXX")" && export TMPDIR
  trap 'rm -rf "$TMPDIR"' EXIT
fi

procs_of() {  # PORT or PORT@N: how many processes to start
  local p="$1"
  case "$p" in *@*) echo "${p#*@}"; return ;; esac
  if [ "$p" = mpi-pr ]; then echo $((np + pr_extra)); else echo "$np"; fi
}
run_one() {  # PORT[@N] ROUND
  local e="$1" r="$2" n log rc p="${1%@*}"
  n="$(procs_of "$e")"
  log="$out/r$r-$e.log"
  {
    echo "# port $p, round $r, $n processes, $(date -u +%FT%TZ), load: $(uptime | sed 's/.*load average: //')"
    echo "# env: ${envs[*]-}"
    if [ -n "$hosts" ]; then echo "# mpi: $mpi, launcher: tools/simhosts.sh --hosts $hosts --own-names --mpi $mpi"
    else echo "# mpi: $mpi, launcher: $launcher"; fi
  } >"$log"
  set +e
  if [ -n "$hosts" ]; then
    local envflags=() kv
    for kv in "${envs[@]+"${envs[@]}"}"; do envflags+=(--env "$kv"); done
    flock "${SIMHOSTS_LOCK:-/tmp/armcix-simhosts.lock}" "$repo/tools/simhosts.sh" --hosts "$hosts" --own-names --timeout "$tmo" --mpi "$mpi" \
      "${envflags[@]+"${envflags[@]}"}" -n "$n" "$dir/$p/bin/ga_ports" "$e" "$scale" >>"$log" 2>&1 </dev/null
  else
    # shellcheck disable=SC2086 # the launcher may be a command with options
    env "${envs[@]+"${envs[@]}"}" timeout -k 10 "$tmo" $launcher -n "$n" "$dir/$p/bin/ga_ports" "$e" "$scale" \
      >>"$log" 2>&1 </dev/null
  fi
  rc=$?
  set -e
  echo "# exit $rc" >>"$log"
  printf '  round %s %-10s %2s procs  exit %-3s load %s\n' "$r" "$e" "$n" "$rc" "$(sed -n '1s/.*load: //p' "$log")"
}

read -r -a plist <<<"$ports"
[ "$summary_only" = 1 ] || echo "ga_ports: ports ${plist[*]}, $np GA ranks (MPI-PR: $(procs_of mpi-pr) processes), ${hosts:+$hosts simulated hosts, }$rounds rounds, logs in $out"
for ((r = 1; r <= rounds && summary_only == 0; r++)); do
  for ((i = 0; i < ${#plist[@]}; i++)); do
    run_one "${plist[$(((i + r - 1) % ${#plist[@]}))]}" "$r"
  done
done

# The table: median over the rounds of each port's mean us per call.
{
  echo "ga_ports: $(date -u +%F), ${#plist[@]} ports, $np GA ranks, ${hosts:+$hosts simulated hosts, }$rounds rounds, scale $scale, MPI $mpi, env: ${envs[*]-none}"
  echo "processes started: $(for p in "${plist[@]}"; do printf '%s=%s ' "$p" "$(procs_of "$p")"; done)"
  echo "load (1 min) before the runs: $(awk 'FNR == 1 { sub(/.*load: /, ""); sub(/,.*/, ""); print }' "$out"/r*-*.log | sort -n | awk '{a[NR]=$1} END {printf "min %s, median %s, max %s", a[1], a[int((NR+1)/2)], a[NR]}')"
  failed_runs="$( (grep -L '^# exit 0$' "$out"/r*-*.log || true) | xargs -r -n1 basename | tr '\n' ' ')"
  checks="$( (grep -l 'CHECK FAILED' "$out"/r*-*.log || true) | xargs -r -n1 basename | tr '\n' ' ')"
  echo "runs that failed: ${failed_runs:-none}; runs with a failed data check: ${checks:-none}"
  logs=()
  for p in "${plist[@]}"; do for f in "$out"/r*-"$p".log; do [ -f "$f" ] && logs+=("$f"); done; done
  for stat in median min; do
  echo
  echo "us per call, $stat over rounds (mean over GA ranks); ratio = ${plist[0]} / port"
  awk -v ports="$ports" -v stat="$stat" '
    FNR == 1 { split(FILENAME, a, "/"); f = a[length(a)]; sub(/\.log$/, "", f); sub(/^r[0-9]+-/, "", f); port = f }
    $1 == "row" && $2 != "op" { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
                                v[key, port] = v[key, port] " " $6 }
    function pick(s,   x, m, i, j, t) {
      m = split(s, x, " "); if (m == 0) return ""
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[j] + 0 < x[i] + 0) { t = x[i]; x[i] = x[j]; x[j] = t }
      if (stat == "min") return x[1]
      return (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
    }
    END {
      np = split(ports, P, " ")
      # Columns as wide as a long port name (armci-mpi-NAME).
      for (i = 1; i <= np; i++) { wv[i] = length(P[i]) > 11 ? length(P[i]) : 11; wr[i] = length(P[i]) + 1 > 9 ? length(P[i]) + 1 : 9 }
      printf "%-9s %-8s", "op", "tile"
      for (i = 1; i <= np; i++) printf " %*s", wv[i], P[i]
      for (i = 2; i <= np; i++) printf " %*s", wr[i], "/" P[i]
      printf "\n"
      for (k = 1; k <= n; k++) {
        split(order[k], kk, " "); printf "%-9s %-8s", kk[1], kk[2]
        for (i = 1; i <= np; i++) { m[i] = pick(v[order[k], P[i]]); printf " %*s", wv[i], m[i] == "" ? "-" : sprintf("%.1f", m[i]) }
        for (i = 2; i <= np; i++) printf " %*s", wr[i], (m[1] == "" || m[i] == "" || m[i] + 0 == 0) ? "-" : sprintf("%.2f", m[1] / m[i])
        printf "\n"
      }
    }' "${logs[@]}"
  done
} | if [ "$summary_only" = 1 ]; then cat; else tee "$out/summary.txt"; fi
