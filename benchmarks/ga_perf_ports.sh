#!/usr/bin/env bash
# Runs GA's own performance programs, built for each GA port by tools/ga-ports.sh --fortran, alternately, several
# rounds in one run, takes each program's figures from its output (time per call of get, put, acc ... per message
# size and section) and prints per figure the median and the minimum over the rounds of each port's time (us) and
# the ratios armci-x / port (below 1: armci-x takes less time).  Issue 58, item 2.
#
#   benchmarks/ga_perf_ports.sh --ports-dir WORK/ports-TAG [options]
#     --ports-dir D   the prefixes tools/ga-ports.sh --fortran built (D/PORT/ga-ports.done with fortran=yes,
#                     D/PORT/bin/PROG.x)
#     --ports "..."   which, in this order (default: those of "armcix mpi-pr mpi-ts mpi3 armci-mpi" built in D);
#                     the first is the reference of the ratios.  PORT@N starts that port with N processes in the
#                     programs that run at --np GA ranks (e.g. armcix@3 beside mpi-pr at --np 2); the programs
#                     that need 4 GA ranks skip PORT@N
#     --progs "..."   which programs (default "perf2 armci_perf ga_shift perf perfmod mir_perf2"):
#                       perf2       global/testing/perf2.c (GA's benchmarks/ga_perf.c): rank 0 alone times
#                                   NGA_Get/Put/Acc of 1-D contiguous and 2-D strided sections (8 B - 2 MB) to
#                                   each other rank; --np ranks
#                       armci_perf  armci/testing/perf.c (GA's benchmarks/armci_perf.c): the same with ARMCI's
#                                   ARMCI_GetS/PutS/AccS, no GA; --np ranks (2-8)
#                       ga_shift    global/testing/ga_shift.F (GA's benchmarks/ga_shift.F): every rank puts to and
#                                   gets from rank me+P/2 one block of 2x2 .. 1024x1024 doubles; create, put,
#                                   sync, get, destroy timed, mean over ranks; --np ranks
#                       perf        global/testing/perf.F (GA's benchmarks/ga_ptp.F): rank 0 alone times ga_get,
#                                   ga_put, ga_acc of square sections of a 1024x1024 array and 1-D sections of a
#                                   1M array, in its own block (local) and in the other ranks' (remote); 4 ranks
#                       perfmod     global/testing/perfmod.F: the same on a 710x710 array (no 1-D); 4 ranks
#                       mir_perf2   global/testing/mir_perf2.F: perf.F's 1-D part (remote: rank 2's block); 4 ranks
#     --skip "..."    PROG:PORT[@N] pairs not to run (e.g. "perf:mpi-ts": a program that takes minutes on a port)
#     --np N          GA ranks of perf2, armci_perf, ga_shift (default 2); perf, perfmod, mir_perf2 refuse any
#                     number but 4
#     --pr-extra K    MPI-PR starts ranks + K processes: one progress rank per node (default: --hosts, else 1)
#     --hosts H       run under tools/simhosts.sh --hosts H --own-names (as benchmarks/ga_ports.sh, serialized by
#                     flock on $SIMHOSTS_LOCK, default /tmp/armcix-simhosts.lock)
#     --launcher CMD  the launcher (default mpiexec.mpich; ignored with --hosts)
#     --env VAR=val   for every run (may repeat; e.g. ARMCI_USE_WIN_ALLOCATE=0)
#     --rounds R      rounds (default 3); each round runs every program on every port, the port order rotating
#     --sleep F       the programs' sleep(s) of the ranks that wait while rank 0 measures lasts s*F seconds
#                     (default 0.1; 1 = as written): benchmarks/ga_perf_sleep.c, preloaded into the ranks
#     --sizes "..."   the tables show only these message sizes (bytes; default: all)
#     --out DIR       logs (default D/runs-perf/<date-time>); DIR/summary.txt gets the tables
#     --timeout S     per run (default 600)
#     --lock FILE     the runs hold flock FILE, the benchmark lock, from before the first load is read until the
#                     last run ends (default $BENCH_LOCK, else /tmp/armcix-bench.lock; "" for none: the caller
#                     holds it).  Taken per run, or per round, other sessions' runs took it between ours for minutes
#                     and three rounds took most of an hour
#     --summary-only  only print the tables again from the logs in --out (same --ports and --progs)
# What a figure is: time per call in us as the program prints it (perf2, armci_perf, perf: usec; perfmod,
# mir_perf2, ga_shift print seconds, converted), keyed by program, section, bytes and operation.  Minimum over
# rounds: what the path costs where other jobs share the cores; median: context.  Rank 0's remote operations
# in perf2, armci_perf, perf, perfmod and mir_perf2 run while the target sleeps: with a port whose transfers
# need the target's CPU (MPI-TS, ARMCI-MPI on windows MPICH serves by active messages) they wait for it to wake.
# The machine's load (uptime) is recorded before every run, in the log and the summary.  MPICH builds only
# (tools/ga-ports.sh --mpi mpich, the default).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
summary_only=0 dir="" ports="" progs="perf2 armci_perf ga_shift perf perfmod mir_perf2" np=2 pr_extra="" hosts=""
launcher="mpiexec.mpich" envs=() rounds=3 sleepf=0.1 sizes="" out="" tmo=600 skip="" lock="${BENCH_LOCK-/tmp/armcix-bench.lock}"
while [ $# -gt 0 ]; do
  case "$1" in
    --ports-dir) dir="$2"; shift 2 ;;
    --ports) ports="$2"; shift 2 ;;
    --progs) progs="$2"; shift 2 ;;
    --skip) skip="$2"; shift 2 ;;
    --np) np="$2"; shift 2 ;;
    --pr-extra) pr_extra="$2"; shift 2 ;;
    --hosts) hosts="$2"; shift 2 ;;
    --launcher) launcher="$2"; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --sleep) sleepf="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --timeout) tmo="$2"; shift 2 ;;
    --lock) lock="$2"; shift 2 ;;
    --summary-only) summary_only=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ga_perf_ports: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] && [ -d "$dir" ] || { echo "ga_perf_ports: --ports-dir DIR (tools/ga-ports.sh --fortran's WORK/ports-TAG) is required" >&2; exit 2; }
dir="$(cd "$dir" && pwd)"
if [ -z "$ports" ]; then
  for p in armcix mpi-pr mpi-ts mpi3 armci-mpi; do [ -f "$dir/$p/ga-ports.done" ] && ports+="${ports:+ }$p"; done
fi
[ -n "$ports" ] || { echo "ga_perf_ports: no port built in $dir (tools/ga-ports.sh --fortran)" >&2; exit 2; }
[ -n "$pr_extra" ] || pr_extra="${hosts:-1}"
: "${MPICC:=mpicc.mpich}"
out="${out:-$dir/runs-perf/$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
shim="$out/ga_perf_sleep.so"

ranks_of() {  # PROG: GA ranks it runs with
  case "$1" in perf | perfmod | mir_perf2) echo 4 ;; *) echo "$np" ;; esac
}
procs_of() {  # PORT[@N] PROG: how many processes to start, or nothing to skip
  local e="$1" g
  case " $skip " in *" $2:$e "*) return 0 ;; esac
  g="$(ranks_of "$2")"
  case "$e" in *@*) if [ "$g" = "$np" ]; then echo "${e#*@}"; fi; return 0 ;; esac
  if [ "${e%@*}" = mpi-pr ]; then echo $((g + pr_extra)); else echo "$g"; fi
}

if [ "$summary_only" = 0 ]; then
  for p in $(for e in $ports; do echo "${e%@*}"; done | sort -u); do
    grep -q '^fortran=yes$' "$dir/$p/ga-ports.done" 2>/dev/null ||
      { echo "ga_perf_ports: port $p is not built with --fortran ($dir/$p/ga-ports.done)" >&2; exit 2; }
    # MPICH only so far (its launcher, tools/simhosts.sh's default); prefixes from before --mpi are MPICH's.
    ! grep -q '^mpi=openmpi$' "$dir/$p/ga-ports.done" ||
      { echo "ga_perf_ports: port $p is built for Open MPI; this script launches with MPICH only" >&2; exit 2; }
    for g in $progs; do
      [ -x "$dir/$p/bin/$g.x" ] || { echo "ga_perf_ports: $dir/$p/bin/$g.x missing" >&2; exit 2; }
    done
  done
  $MPICC -O2 -shared -fPIC -o "$shim" "$repo/benchmarks/ga_perf_sleep.c"
fi

run_one() {  # PORT[@N] PROG ROUND
  local e="$1" g="$2" r="$3" n log rc p="${1%@*}"
  n="$(procs_of "$e" "$g")"
  [ -n "$n" ] || return 0
  log="$out/r$r-$g-$e.log"
  {
    echo "# program $g, port $p, round $r, $n processes, $(date -u +%FT%TZ), load: $(uptime | sed 's/.*load average: //')"
    echo "# env: ${envs[*]-} GA_PERF_SLEEP=$sleepf"
  } >"$log"
  # Only the ranks get the shorter sleep(): the launcher starts env, which preloads it into the program.
  local cmd=(env LD_PRELOAD="$shim" GA_PERF_SLEEP="$sleepf" "$dir/$p/bin/$g.x")
  set +e
  if [ -n "$hosts" ]; then
    local envflags=() kv
    for kv in "${envs[@]+"${envs[@]}"}"; do envflags+=(--env "$kv"); done
    flock "${SIMHOSTS_LOCK:-/tmp/armcix-simhosts.lock}" "$repo/tools/simhosts.sh" --hosts "$hosts" --own-names \
      --timeout "$tmo" "${envflags[@]+"${envflags[@]}"}" -n "$n" "${cmd[@]}" >>"$log" 2>&1 </dev/null 9>&-
  else
    # shellcheck disable=SC2086 # the launcher may be a command with options
    env "${envs[@]+"${envs[@]}"}" timeout -k 10 "$tmo" $launcher -n "$n" "${cmd[@]}" >>"$log" 2>&1 </dev/null 9>&-
  fi
  rc=$?
  set -e
  echo "# exit $rc" >>"$log"
  printf '  round %s %-10s %-10s %2s procs  exit %-3s load %s\n' "$r" "$g" "$e" "$n" "$rc" "$(sed -n '1s/.*load: //p' "$log")"
}

read -r -a plist <<<"$ports"
[ "$summary_only" = 1 ] || echo "ga_perf_ports: programs $progs; ports ${plist[*]}; $np GA ranks (perf, perfmod, mir_perf2: 4), MPI-PR +$pr_extra; ${hosts:+$hosts simulated hosts, }$rounds rounds, sleep x$sleepf, logs in $out"
# The benchmark lock (fd 9, not passed to the jobs) for all rounds.
if [ "$summary_only" = 0 ] && [ -n "$lock" ]; then
  exec 9>>"$lock"
  echo "ga_perf_ports: waiting for $lock ($(date -u +%T))"
  flock 9
  echo "ga_perf_ports: $lock taken ($(date -u +%T))"
fi
for ((r = 1; r <= rounds && summary_only == 0; r++)); do
  for g in $progs; do
    for ((i = 0; i < ${#plist[@]}; i++)); do
      run_one "${plist[$(((i + r - 1) % ${#plist[@]}))]}" "$g" "$r"
    done
  done
done
if [ -n "$lock" ] && [ "$summary_only" = 0 ]; then exec 9>&-; fi

# Figures: "PROG SECTION BYTES OP US" from each log (rank 0's output; ga_shift's are means over the ranks).
figures() {  # LOG PROG
  awk -v prog="$2" '
    function num(s) { gsub(/[dD]/, "E", s); return s + 0 }
    function emit(sec, b, op, us) { print prog, sec, b, op, us }
    prog == "perf2" || prog == "armci_perf" {
      if (/Contiguous Data Transfer/) sec = "contig"
      if (/Strided Data Transfer/) sec = "strided"
      if (/correctness/) sec = ""
      if (sec != "" && NF == 8 && $1 ~ /^[0-9]+$/) {
        emit(sec, $1, "get", num($3)); emit(sec, $1, "put", num($5)); emit(sec, $1, "acc", num($7)) }
    }
    prog == "perf" || prog == "mir_perf2" {
      if (/Local 2-D/) sec = "local-2d"; if (/Remote 2-D/) sec = "remote-2d"
      if (/Local 1-D/) sec = "local-1d"; if (/Remote 1-D/) sec = "remote-1d"
      f = (prog == "perf") ? 1 : 1e6   # perf.F prints usec, mir_perf2.F seconds
      if (sec != "" && NF == 8 && $1 ~ /^[0-9]+$/) {
        emit(sec, $1, "get", num($3) * f); emit(sec, $1, "put", num($5) * f); emit(sec, $1, "acc", num($7) * f) }
    }
    prog == "perfmod" {
      if (/ACCESS \[/) sec = "local-2d"; if (/remote section/) sec = "remote-2d"
      line = $0; gsub(/MB\/s/, " ", line); n = split(line, x, " ")
      if (sec != "" && n == 8 && x[1] ~ /^[0-9]+$/) {
        emit(sec, x[1], "get", num(x[3]) * 1e6); emit(sec, x[1], "put", num(x[5]) * 1e6); emit(sec, x[1], "acc", num(x[7]) * 1e6) }
    }
    prog == "ga_shift" {
      if (/Time spent in GA initialization/) emit("shift", 0, "ga_init", num($NF) * 1e6)
      if (/Testing block size of/) b = 8 * $NF
      if (/Time spent creating GA/) emit("shift", b, "create", num($NF) * 1e6)
      if (/Time spent in put:/) emit("shift", b, "put", num($NF) * 1e6)
      if (/Time spent in sync:/) emit("shift", b, "sync", num($NF) * 1e6)
      if (/Time spent in get:/) emit("shift", b, "get", num($NF) * 1e6)
      if (/Time spent destroying GA/) emit("shift", b, "destroy", num($NF) * 1e6)
    }' "$1"
}
ok_line() {  # PROG: what its output says when it finished its checks
  case "$1" in armci_perf) echo 'Tests Completed' ;; ga_shift) echo 'Time spent destroying GA' ;; *) echo 'All tests successful' ;; esac
}

{
  echo "ga_perf_ports: $(date -u +%F), programs: $progs; ports: $ports; $np GA ranks (perf, perfmod, mir_perf2: 4); ${hosts:+$hosts simulated hosts, }$rounds rounds; sleep x$sleepf; env: ${envs[*]-none}"
  for g in $progs; do
    echo "processes started, $g: $(for e in "${plist[@]}"; do n="$(procs_of "$e" "$g")"; printf '%s=%s ' "$e" "${n:-skipped}"; done)"
  done
  echo "load (1 min) before the runs: $(awk 'FNR == 1 { sub(/.*load: /, ""); sub(/,.*/, ""); print }' "$out"/r*.log | sort -n | awk '{a[NR]=$1} END {printf "min %s, median %s, max %s", a[1], a[int((NR+1)/2)], a[NR]}')"
  failed="" unchecked=""
  for f in "$out"/r*.log; do
    grep -q '^# exit 0$' "$f" || failed+="$(basename "$f" .log)($(sed -n 's/^# exit //p' "$f")) "
    g="$(sed -n '1s/^# program \([^,]*\),.*/\1/p' "$f")"
    grep -q "$(ok_line "$g")" "$f" || unchecked+="$(basename "$f" .log) "
    if grep -qi 'mismatch\|comparison failed' "$f"; then unchecked+="$(basename "$f" .log)(data) "; fi
  done
  echo "runs that failed (exit status): ${failed:-none}; runs without the program's closing line or with a data error: ${unchecked:-none}"
  for g in $progs; do
    for stat in median min; do
      echo
      echo "== $g: us per call, $stat over rounds; ratio = ${plist[0]} / port"
      for f in "$out"/r*-"$g"-*.log; do
        [ -f "$f" ] || continue
        e="$(basename "$f" .log)"; e="${e#r*-"$g"-}"
        figures "$f" "$g" | sed "s/^/$e /"
      done | awk -v ports="$ports" -v stat="$stat" -v sizes="$sizes" '
        BEGIN { ns = split(sizes, S, " "); for (i = 1; i <= ns; i++) want[S[i]] = 1 }
        ns > 0 && !($4 in want) && $4 != 0 { next }
        { key = $3 " " $4 " " $5; if (!(key in seen)) { seen[key] = 1; order[++n] = key }; v[key, $1] = v[key, $1] " " $6 }
        function pick(s,   x, m, i, j, t) {
          m = split(s, x, " "); if (m == 0) return ""
          for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[j] + 0 < x[i] + 0) { t = x[i]; x[i] = x[j]; x[j] = t }
          if (stat == "min") return x[1]
          return (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
        }
        function fmt(x) { return x == "" ? "-" : (x < 10 ? sprintf("%.2f", x) : (x < 1000 ? sprintf("%.1f", x) : sprintf("%.0f", x))) }
        END {
          np = split(ports, P, " ")
          printf "%-10s %8s %-7s", "section", "bytes", "op"
          for (i = 1; i <= np; i++) printf " %10s", P[i]
          for (i = 2; i <= np; i++) printf " %9s", "/" P[i]
          printf "\n"
          for (k = 1; k <= n; k++) {
            split(order[k], kk, " "); printf "%-10s %8s %-7s", kk[1], kk[2], kk[3]
            for (i = 1; i <= np; i++) { m[i] = pick(v[order[k], P[i]]); printf " %10s", fmt(m[i]) }
            for (i = 2; i <= np; i++) printf " %9s", (m[1] == "" || m[i] == "" || m[i] + 0 == 0) ? "-" : sprintf("%.2f", m[1] / m[i])
            printf "\n"
          }
        }'
    done
  done
} | if [ "$summary_only" = 1 ]; then cat; else tee "$out/summary.txt"; fi
