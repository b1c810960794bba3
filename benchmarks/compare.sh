#!/usr/bin/env bash
# compare.sh -- build the benchmark suite against armci-x ("ours") and against ARMCI-MPI ("armci-mpi":
# Debian's libarmci-mpi-dev unless --theirs says otherwise; 0.3.1 on Debian 12, 0.4 on Debian 13), run the two
# alternately, and print a comparison table.  The header names the ARMCI-MPI version compared with.
#
# usage: benchmarks/compare.sh [--ours LIBFILE_OR_LINKFLAGS] [--ours-include DIR] [--quick]
#                              [--runs N] [--np N] [--timeout SEC] [--budget SEC] [--build-dir DIR]
#                              [--theirs LINKFLAGS] [--theirs-include DIR] [--ours-env "VAR=val ..."]
#                              [--theirs-env "VAR=val ..."] [--theirs-name LABEL] [--hosts H] [--build-only]
#                              [bench ...]
#
# See benchmarks/README.md.  Exit status: 0 if every build and run succeeded, 1 if any failed
# (a failed data check, a crash or a timeout: the table shows FAILED and the script goes on),
# 2 on a usage error.
set -u

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
# scale and scale_ga (issue 30) run only when named (benchmarks/scale.sh runs them at many rank counts).
DEFAULT_BENCHES="contig strided sync nb raw_mpi ga_patch"
KNOWN_BENCHES="$DEFAULT_BENCHES scale scale_ga"
MPICC=${MPICC:-mpicc.mpich}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
CFLAGS=${BENCH_CFLAGS:--O2 -g -Wall -Wextra}

# "Debian ARMCI-MPI 0.4 (libarmci-mpi-dev 0.4-6)": the upstream version is the package's without the
# Debian revision.  The library linked by default (-larmci-mpich) is that package's.
armci_mpi_version_label() {
    local v
    v=$(dpkg-query -W -f='${Version}' libarmci-mpi-dev 2>/dev/null) || v=""
    if [ -n "$v" ]; then
        echo "Debian ARMCI-MPI ${v%-*} (libarmci-mpi-dev $v)"
    else
        echo "ARMCI-MPI (version unknown: libarmci-mpi-dev is not installed)"
    fi
}

usage() {
    cat <<EOF
usage: benchmarks/compare.sh [options] [bench ...]

Builds each benchmark twice -- against armci-x ("ours") and ARMCI-MPI ("armci-mpi") -- runs the
two alternately (ours, armci-mpi, ours, armci-mpi, ...), takes the median of every row over the
runs and prints a table with the spread of the runs (min..max) next to the medians (also written
to benchmarks/results-latest.txt).

benches: $KNOWN_BENCHES
(default: $DEFAULT_BENCHES; raw_mpi gives the MPI floors; scale and scale_ga: benchmarks/scale.sh)

options:
  --ours X            armci-x library: a .a/.so file or link flags, e.g. "-L/opt/x/lib -larmci"
                      (default: \$REPO/src/.libs/libarmci.a, else libarmci.so)
  --ours-include DIR  armci-x headers, put before /usr/include (default: \$REPO/include)
  --theirs FLAGS      ARMCI-MPI link flags (default: -larmci-mpich; headers from /usr/include)
  --theirs-include D  ARMCI-MPI headers (default: none, i.e. /usr/include)
  --theirs-name L     label of that library in the header (default: "Debian ARMCI-MPI V", V read from
                      dpkg-query -W libarmci-mpi-dev; "armci-mpi" with --theirs); e.g. "HEAD" for ARMCI-MPI
                      built from source by tools/build-armci-mpi.sh:
                        --theirs "-Wl,-rpath,P/lib -LP/lib -larmci" --theirs-include P/include --theirs-name HEAD
  --hosts H           run across H simulated hosts (tools/simhosts.sh: network namespaces, MPI over TCP;
                      needs root), NP/H ranks per host; --np defaults to H then (one rank per host).
                      UCX_TLS from the caller's environment, else tcp,self: with shared memory among
                      its transports UCX finds the other "hosts" on the same machine and bypasses TCP
                      (an 8-byte put + flush then takes 0.8 us instead of ~13 us)
  --ours-env "V=x .." environment for armci-x's runs only (e.g. "ARMCI_SHM=0 ARMCI_STRIDED_METHOD=PACK");
                      ARMCI-MPI reads some of the same names, so they are not exported to its runs
  --theirs-env "V=x"  environment for ARMCI-MPI's runs only (e.g. "ARMCI_STRIDED_METHOD=IOV")
  --quick             fewer sizes/repetitions, 1 run per library (target: < 2 min in total)
  --runs N            runs per library and benchmark (default: 3, quick: 1)
  --np N              MPI ranks (default: 2)
  --timeout SEC       per-run timeout (default: 240, quick: 60)
  --budget SEC        runs beyond the 2nd (raw_mpi: the 1st) are skipped once this much time
                      has passed (default: 300; 0 = never skip)
  --build-dir DIR     where binaries and logs go (default: a new /tmp/armcix-bench.XXXXXX)
  --build-only        build the benchmarks for both libraries and stop (benchmarks/scale.sh --large-only)

Validation (both sides ARMCI-MPI, ratios should be ~1):
  benchmarks/compare.sh --ours -larmci-mpich --ours-include /usr/include --quick
EOF
}

OURS=""
OURS_INC=""
OURS_ENV=""
THEIRS_ENV=""
THEIRS="-larmci-mpich"
THEIRS_INC=""
THEIRS_NAME=""
HOSTS=0
NP_SET=0
QUICK=0
RUNS=""
BUILD_ONLY=0
NP=2
TIMEOUT=""
BUDGET=300
BUILD=""
BENCHES=()

need_arg() { [ "$#" -ge 2 ] || { echo "compare.sh: $1 needs an argument" >&2; usage >&2; exit 2; }; }
while [ "$#" -gt 0 ]; do
    case "$1" in
        --ours) need_arg "$@"; OURS=$2; shift 2 ;;
        --ours-include) need_arg "$@"; OURS_INC=$2; shift 2 ;;
        --ours-env) need_arg "$@"; OURS_ENV=$2; shift 2 ;;
        --theirs-env) need_arg "$@"; THEIRS_ENV=$2; shift 2 ;;
        --theirs) need_arg "$@"; THEIRS=$2; shift 2 ;;
        --theirs-include) need_arg "$@"; THEIRS_INC=$2; shift 2 ;;
        --quick) QUICK=1; shift ;;
        --runs) need_arg "$@"; RUNS=$2; shift 2 ;;
        --np) need_arg "$@"; NP=$2; NP_SET=1; shift 2 ;;
        --hosts) need_arg "$@"; HOSTS=$2; shift 2 ;;
        --theirs-name) need_arg "$@"; THEIRS_NAME=$2; shift 2 ;;
        --timeout) need_arg "$@"; TIMEOUT=$2; shift 2 ;;
        --budget) need_arg "$@"; BUDGET=$2; shift 2 ;;
        --build-dir) need_arg "$@"; BUILD=$2; shift 2 ;;
        --build-only) BUILD_ONLY=1; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *)
            case " $KNOWN_BENCHES " in
                *" $1 "*) BENCHES+=("$1") ;;
                *) echo "compare.sh: unknown benchmark '$1' (known: $KNOWN_BENCHES)" >&2; exit 2 ;;
            esac
            shift ;;
    esac
done
[ "${#BENCHES[@]}" -gt 0 ] || read -r -a BENCHES <<<"$DEFAULT_BENCHES"
if [ -z "$THEIRS_NAME" ]; then
    if [ "$THEIRS" = "-larmci-mpich" ]; then
        THEIRS_NAME="$(armci_mpi_version_label)"
    else
        THEIRS_NAME="armci-mpi"
    fi
fi
if [ -z "$RUNS" ]; then
    if [ "$QUICK" = 1 ]; then RUNS=1; else RUNS=3; fi
fi
if [ -z "$TIMEOUT" ]; then
    if [ "$QUICK" = 1 ]; then TIMEOUT=60; else TIMEOUT=240; fi
fi
case "$RUNS$NP$TIMEOUT$BUDGET$HOSTS" in
    *[!0-9]*) echo "compare.sh: --runs/--np/--timeout/--budget take integers" >&2; exit 2 ;;
esac
[ "$RUNS" -ge 1 ] && [ "$NP" -ge 1 ] || { echo "compare.sh: --runs and --np must be >= 1" >&2; exit 2; }
QFLAG=()
[ "$QUICK" = 1 ] && QFLAG=(--quick)
# The launcher: mpiexec, or across simulated hosts tools/simhosts.sh (which takes mpiexec's -n).
LAUNCH=("$MPIEXEC")
WHERE="one host"
if [ "$HOSTS" -gt 0 ]; then
    [ "$NP_SET" = 1 ] || NP=$HOSTS
    [ $((NP % HOSTS)) = 0 ] || { echo "compare.sh: --np $NP is not a multiple of --hosts $HOSTS" >&2; exit 2; }
    [ "$(id -u)" = 0 ] || { echo "compare.sh: --hosts needs root (network namespaces)" >&2; exit 2; }
    # One interface prefix per compare.sh run (simhosts' default is per PID, which the runs share here).
    export UCX_TLS=${UCX_TLS:-tcp,self}
    LAUNCH=("$REPO/tools/simhosts.sh" --hosts "$HOSTS" --prefix "cmp$(($$ % 100000))" --timeout "$TIMEOUT")
    WHERE="$HOSTS simulated hosts x $((NP / HOSTS)) rank(s), UCX_TLS=$UCX_TLS"
fi

for tool in "$MPICC" "$MPIEXEC" timeout awk; do
    command -v "$tool" >/dev/null 2>&1 || { echo "compare.sh: '$tool' not found" >&2; exit 2; }
done

# --- our library ---------------------------------------------------------------------------------
[ -n "$OURS_INC" ] || OURS_INC="$REPO/include"
NEED_OURS=0
for b in "${BENCHES[@]}"; do [ "$b" = raw_mpi ] || NEED_OURS=1; done
if [ -z "$OURS" ] && [ "$NEED_OURS" = 1 ]; then
    for f in "$REPO/src/.libs/libarmci.a" "$REPO/src/.libs/libarmci.so"; do
        if [ -f "$f" ]; then OURS=$f; break; fi
    done
    if [ -z "$OURS" ]; then
        echo "compare.sh: armci-x library not found ($REPO/src/.libs/libarmci.{a,so});" >&2
        echo "            build it first or pass --ours LIBFILE_OR_LINKFLAGS" >&2
        exit 2
    fi
fi
OURS_LINK=()
if [ -z "$OURS" ]; then
    :
elif [ -f "$OURS" ]; then
    OURS_ABS=$(cd "$(dirname "$OURS")" && pwd)/$(basename "$OURS")
    case "$OURS_ABS" in
        *.a) OURS_LINK=("$OURS_ABS" -lstdc++ -lpthread) ;;           # static C++ library
        *.so|*.so.*) OURS_LINK=("-Wl,-rpath,$(dirname "$OURS_ABS")" "$OURS_ABS") ;;
        *) OURS_LINK=("$OURS_ABS") ;;
    esac
else
    read -r -a OURS_LINK <<<"$OURS"
fi
[ -d "$OURS_INC" ] || echo "compare.sh: warning: --ours-include $OURS_INC is not a directory" >&2
read -r -a THEIRS_LINK <<<"$THEIRS"
THEIRS_CPP=()
[ -n "$THEIRS_INC" ] && THEIRS_CPP=(-I"$THEIRS_INC")

# --- build directory ----------------------------------------------------------------------------
if [ -z "$BUILD" ]; then
    BUILD=$(mktemp -d /tmp/armcix-bench.XXXXXX) || exit 2
fi
mkdir -p "$BUILD/ours" "$BUILD/armci-mpi" "$BUILD/mpi" "$BUILD/logs" || exit 2
BUILD=$(cd "$BUILD" && pwd)
ROWS="$BUILD/rows.txt"
STATUS="$BUILD/status.txt"
TABLE="$BUILD/table.txt"
: >"$ROWS"
: >"$STATUS"
ANY_FAIL=0
START=$(date +%s)

export ARMCI_USE_WIN_ALLOCATE=${ARMCI_USE_WIN_ALLOCATE:-0}   # MPICH 4.0.x atomics bug (6110)

which_header() { # prints the armci.h the compiler picks with the given flags
    printf '#include <armci.h>\n' | "$MPICC" "$@" -E -x c - 2>/dev/null |
        awk -F'"' '/^# [0-9]+ ".*armci\.h"/ { print $2; exit }'
}

echo "# compare.sh: $(date '+%Y-%m-%d %H:%M:%S'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# mode $([ "$QUICK" = 1 ] && echo quick || echo full), $RUNS run(s) per library, $NP ranks," \
     "timeout ${TIMEOUT}s, ARMCI_USE_WIN_ALLOCATE=$ARMCI_USE_WIN_ALLOCATE, $WHERE"
echo "# ours:      ${OURS_LINK[*]}   headers: $(which_header -I"$OURS_INC")${OURS_ENV:+   env: $OURS_ENV}"
echo "# armci-mpi: ($THEIRS_NAME) ${THEIRS_LINK[*]}   headers: $(which_header "${THEIRS_CPP[@]}")${THEIRS_ENV:+   env: $THEIRS_ENV}"
echo "# build dir: $BUILD"
LOAD1=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$LOAD1" 'BEGIN { exit !(l > 1.0) }'; then
    echo "# WARNING: the machine is busy (1-min load $LOAD1 before starting, on $(nproc) cores): the two ranks"
    echo "#          compete with other processes and timings will be noisy (look for ~4-12 ms stalls)."
fi

# --- build ----------------------------------------------------------------------------------------
declare -A BUILT
# ga_patch links Debian's Global Arrays (built against ARMCI-MPI's armci.h) in front of the library.
GA_LIB=${GA_LIB:-/usr/lib/x86_64-linux-gnu/libga-mpich.a}
GA_DEPS=(/usr/lib/x86_64-linux-gnu/libscalapack-mpich.so.2.2 -llapack -lblas -lgfortran)
build() { # lib bench
    local lib=$1 b=$2 log="$BUILD/logs/build.$1.$2.log" rc
    local -a pre=() post=()
    case "$b" in ga_patch|scale_ga) pre=("$GA_LIB"); post=("${GA_DEPS[@]}") ;; esac
    case "$lib" in
        ours) "$MPICC" $CFLAGS -I"$OURS_INC" "$SCRIPT_DIR/$b.c" -o "$BUILD/ours/$b" \
                  "${pre[@]}" "${OURS_LINK[@]}" "${post[@]}" -lm >"$log" 2>&1 ;;
        armci-mpi) "$MPICC" $CFLAGS "${THEIRS_CPP[@]}" "$SCRIPT_DIR/$b.c" -o "$BUILD/armci-mpi/$b" \
                  "${pre[@]}" "${THEIRS_LINK[@]}" "${post[@]}" -lm >"$log" 2>&1 ;;
        mpi) "$MPICC" $CFLAGS "$SCRIPT_DIR/$b.c" -o "$BUILD/mpi/$b" -lm >"$log" 2>&1 ;;
    esac
    rc=$?
    if [ "$rc" != 0 ]; then
        echo "build $b ($lib): FAILED, see $log"
        sed 's/^/    /' "$log" | tail -n 15
        echo "$b $lib 0 FAILED(build)" >>"$STATUS"
        ANY_FAIL=1
        BUILT[$lib.$b]=0
    else
        [ -s "$log" ] && { echo "build $b ($lib): warnings:"; sed 's/^/    /' "$log" | head -n 20; }
        BUILT[$lib.$b]=1
    fi
}
for b in "${BENCHES[@]}"; do
    if [ "$b" = raw_mpi ]; then
        build mpi "$b"
    else
        build ours "$b"
        build armci-mpi "$b"
    fi
done
[ "$BUILD_ONLY" = 1 ] && exit "$ANY_FAIL"

# --- run --------------------------------------------------------------------------------------------
# The run goes in the background so that an interrupt (Ctrl-C) can stop it at once: timeout(1) puts
# mpiexec in its own process group and forwards the TERM we send it.
CUR_PID=""
on_signal() {
    echo "compare.sh: interrupted" >&2
    [ -n "$CUR_PID" ] && kill -TERM "$CUR_PID" 2>/dev/null && wait "$CUR_PID" 2>/dev/null
    exit 130
}
trap on_signal INT TERM
declare -A TIMED_OUT
run() { # lib bench idx
    local lib=$1 b=$2 i=$3 log="$BUILD/logs/$2.$1.$3.log" rc t0 t1 st
    [ "${BUILT[$lib.$b]}" = 1 ] || return 0
    if [ -n "${TIMED_OUT[$lib.$b]:-}" ]; then
        echo "  $b ($lib) run $i: skipped, an earlier run timed out"
        return 0
    fi
    t0=$(date +%s.%N)
    local -a envv=()
    [ "$lib" = ours ] && [ -n "$OURS_ENV" ] && read -r -a envv <<<"$OURS_ENV"
    [ "$lib" = armci-mpi ] && [ -n "$THEIRS_ENV" ] && read -r -a envv <<<"$THEIRS_ENV"
    env "${envv[@]}" timeout -k 10 "$((TIMEOUT + 15))" "${LAUNCH[@]}" -n "$NP" "$BUILD/$lib/$b" "${QFLAG[@]}" </dev/null >"$log" 2>&1 &
    CUR_PID=$!
    wait "$CUR_PID"
    rc=$?
    CUR_PID=""
    t1=$(date +%s.%N)
    if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && grep -q "^# $b: all data checks passed" "$log"; then
        # Every result is in and checked; the job hung in MPI_Finalize (MPICH 4.0.2 + UCX 1.13 over
        # TCP between simulated hosts does in some runs): keep the results, say so.
        st=ok
        echo "  $b ($lib) run $i: timed out after its results (a hang in MPI_Finalize): results kept"
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        st="FAILED(timeout)"
        TIMED_OUT[$lib.$b]=1
    elif grep -q '^CHECK FAILED' "$log"; then
        st="FAILED(check)"
    elif [ "$rc" != 0 ]; then
        st="FAILED(rc=$rc)"
    elif ! grep -q "^# $b: all data checks passed" "$log"; then
        st="FAILED(incomplete)"
    else
        st=ok
    fi
    printf '  %-8s %-9s run %d/%d: %-18s %6.1f s\n' "$b" "$lib" "$i" "$nruns" "$st" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
    echo "$b $lib $i $st" >>"$STATUS"
    if [ "$st" = ok ]; then
        awk -v lib="$lib" '$1 == "RESULT" && NF == 6 { print lib, $0 }' "$log" >>"$ROWS"
    else
        ANY_FAIL=1
        grep -E '^(CHECK FAILED|FATAL)' "$log" | head -n 5 | sed 's/^/      /'
    fi
}
SKIPPED=0
for b in "${BENCHES[@]}"; do
    # raw_mpi does not depend on the library: at most 2 runs, the 2nd only within the time budget
    nruns=$RUNS
    minruns=2
    if [ "$b" = raw_mpi ]; then
        [ "$nruns" -gt 2 ] && nruns=2
        minruns=1
    fi
    for ((i = 1; i <= nruns; i++)); do
        if [ "$i" -gt "$minruns" ] && [ "$BUDGET" -gt 0 ] && [ $(($(date +%s) - START)) -gt "$BUDGET" ]; then
            echo "  $b: skipping runs $i..$nruns (time budget of ${BUDGET}s exceeded)"
            SKIPPED=1
            break
        fi
        if [ "$b" = raw_mpi ]; then
            run mpi "$b" "$i"
        else
            run ours "$b" "$i"
            run armci-mpi "$b" "$i"
        fi
    done
done

# --- table ------------------------------------------------------------------------------------------
# rows.txt:   <lib> RESULT <bench> <variant> <param> <value> <unit>
# status.txt: <bench> <lib> <run> <ok|FAILED(...)>
read -r -d '' AWK_TABLE <<'EOF'
function med(k,    n, i, j, a, x) {
    n = cnt[k]
    if (n == 0) return ""
    for (i = 1; i <= n; i++) a[i] = vals[k, i] + 0
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function rng(k, unit,    n, i, lo, hi, x) { # "min..max" of the runs' values of a row (each run's own figure)
    n = cnt[k]
    if (n == 0) return "-"
    lo = hi = vals[k, 1] + 0
    for (i = 2; i <= n; i++) { x = vals[k, i] + 0; if (x < lo) lo = x; if (x > hi) hi = x }
    return fmt(lo, unit) ".." fmt(hi, unit)
}
function fmt(v, unit) {
    if (v == "") return "-"
    if (unit == "frac") return sprintf("%.2f", v)
    if (unit == "count") return sprintf("%d", v)
    if (v >= 1000 || v <= -1000) return sprintf("%.0f", v)
    if (v >= 100) return sprintf("%.1f", v)
    if (v >= 10) return sprintf("%.2f", v)
    return sprintf("%.3f", v)
}
function lower_better(unit) { return unit == "us" || unit == "ms" || unit == "B" }
function abbrev(v) { sub(/^create:/, "C.", v); sub(/^alloc:/, "A.", v); sub(/flush_local/, "fl", v); sub(/flush/, "f", v); return v }
FILENAME == STATUS {
    if ($4 != "ok") { prev = (($1, $2) in failed) ? failed[$1, $2] "," : ""; failed[$1, $2] = prev $4 }
    next
}
$2 == "RESULT" {
    lib = $1; key = $3 SUBSEP $4 SUBSEP $5 SUBSEP $7
    if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
    cnt[key, lib]++; vals[key, lib, cnt[key, lib]] = $6
    cnt[key, "all"]++; vals[key, "all", cnt[key, "all"]] = $6
}
END {
    floor_of["put"] = "put+flush_local"; floor_of["put+fence"] = "put+flush"
    floor_of["get"] = "get+flush"; floor_of["acc"] = "acc+flush_local"
    nb = split(BENCHES, blist, " ")
    printf "%-8s %-16s %8s %-5s %10s %10s %9s %-6s %17s %17s %10s %9s  %s\n", "bench", "variant", "param", "unit",
           "ours", "armci-mpi", "ours/a-m", "better", "ours min..max", "a-m min..max", "mpi-floor", "memcpy", "note"
    for (bi = 1; bi <= nb; bi++) {
        b = blist[bi]
        if (b == "raw_mpi") continue
        fo = ((b, "ours") in failed) ? "FAILED" : ""
        ft = ((b, "armci-mpi") in failed) ? "FAILED" : ""
        rows = 0; lsum = 0; lnum = 0
        for (k = 1; k <= nkeys; k++) {
            split(order[k], f, SUBSEP)
            if (f[1] != b || f[2] == "memcpy") continue
            rows++
            key = order[k]; unit = f[4]
            o = fo != "" ? "" : med(key SUBSEP "ours")
            t = ft != "" ? "" : med(key SUBSEP "armci-mpi")
            os = fo != "" ? fo : fmt(o, unit); ts = ft != "" ? ft : fmt(t, unit)
            ratio = "-"; note = ""
            if (o != "" && t != "") {
                if (unit == "frac") {
                    ratio = sprintf("%+.2f d", o - t)
                    bare = f[2]; sub(/^avail_/, "bare_", bare)
                    bo = med(f[1] SUBSEP bare SUBSEP f[3] SUBSEP "us" SUBSEP "ours")
                    bt = med(f[1] SUBSEP bare SUBSEP f[3] SUBSEP "us" SUBSEP "armci-mpi")
                    if (bo != "" && bt != "" && (bo < 1 || bt < 1)) note = "(t_bare < 1 us)"
                    else if (o - t < -0.15) note = "less overlap"
                    else if (o - t > 0.15) note = "more overlap"
                } else if (t > 0 && o > 0) {
                    ratio = sprintf("%.2f", o / t)
                    cost = lower_better(unit) ? o / t : t / o
                    lsum += log(cost); lnum++
                    if (cost > 1.25) note = "ours slower"
                    else if (cost < 0.8) note = "ours faster"
                }
            } else if (fo != "" || ft != "") {
                note = "FAILED"
            }
            fl = "-"; mc = "-"
            if (b == "contig" && (f[2] in floor_of)) {
                c = med("raw_mpi" SUBSEP "create:" floor_of[f[2]] SUBSEP f[3] SUBSEP unit SUBSEP "mpi")
                a = med("raw_mpi" SUBSEP "alloc:" floor_of[f[2]] SUBSEP f[3] SUBSEP unit SUBSEP "mpi")
                v = c
                if (v == "" || (a != "" && (lower_better(unit) ? a < v : a > v))) v = a
                fl = fmt(v, unit)
            }
            if (b == "contig") mc = fmt(med("contig" SUBSEP "memcpy" SUBSEP f[3] SUBSEP unit SUBSEP "all"), unit)
            ro = fo != "" ? "-" : rng(key SUBSEP "ours", unit); rt = ft != "" ? "-" : rng(key SUBSEP "armci-mpi", unit)
            printf "%-8s %-16s %8s %-5s %10s %10s %9s %-6s %17s %17s %10s %9s  %s\n", b, f[2], f[3], unit, os, ts,
                   ratio, lower_better(unit) ? "lower" : "higher", ro, rt, fl, mc, note
        }
        if (rows == 0)
            printf "%-8s %-16s %8s %-5s %10s %10s\n", b, "(no results)", "-", "-", fo != "" ? fo : "-", ft != "" ? ft : "-"
        else if (lnum > 0)
            printf "%-8s   => geometric mean of cost ratios (ours/armci-mpi, <1 = ours faster): %.3f over %d rows\n",
                   b, exp(lsum / lnum), lnum
        summary_n[b] = lnum; summary_v[b] = lnum ? exp(lsum / lnum) : 0
    }

    # Floors: raw MPI-3 (one column per window kind and operation) and memcpy, in us per operation.
    ncol = 0; nprm = 0
    for (k = 1; k <= nkeys; k++) {
        split(order[k], f, SUBSEP)
        if (f[1] != "raw_mpi" || f[4] != "us" || f[2] ~ /fop/) continue
        if (!(f[2] in colseen)) { colseen[f[2]] = 1; col[++ncol] = f[2] }
        if (!(f[3] in prmseen)) { prmseen[f[3]] = 1; prm[++nprm] = f[3] }
    }
    if (("raw_mpi", "mpi") in failed) printf "\nraw_mpi (floors): %s\n", failed["raw_mpi", "mpi"]
    if (ncol > 0) {
        printf "\nFloors, us per operation (raw MPI-3, lock_all; C = MPI_Win_create on MPI_Alloc_mem memory, A = MPI_Win_allocate;\n"
        printf "fl = MPI_Win_flush_local, f = MPI_Win_flush; memcpy = same-size local copy from contig):\n"
        printf "%8s", "bytes"
        for (c = 1; c <= ncol; c++) printf " %10s", abbrev(col[c])
        printf " %10s\n", "memcpy"
        for (p = 1; p <= nprm; p++) {
            printf "%8s", prm[p]
            for (c = 1; c <= ncol; c++) printf " %10s", fmt(med("raw_mpi" SUBSEP col[c] SUBSEP prm[p] SUBSEP "us" SUBSEP "mpi"), "us")
            printf " %10s\n", fmt(med("contig" SUBSEP "memcpy" SUBSEP prm[p] SUBSEP "us" SUBSEP "all"), "us")
        }
        for (k = 1; k <= nkeys; k++) {
            split(order[k], f, SUBSEP)
            if (f[1] != "raw_mpi" || f[2] !~ /fop/) continue
            printf "raw_mpi  %-30s %4s B  %10s %s\n", f[2], f[3], fmt(med(order[k] SUBSEP "mpi"), f[4]), f[4]
        }
    }
    printf "\nRatios are ours/armci-mpi of the per-row medians over the runs; min..max is the spread of the runs' own\n"
    printf "figures for that row (with one run: that run's figure twice).  'better' says which direction is better for that unit\n"
    printf "(us: lower; MB/s, msg/s, frac: higher).  For frac (overlap availability) the column is the difference ours - armci-mpi.\n"
    printf "Notes flag differences beyond 25%% (0.15 for frac); single-machine timings are noisy, rerun before trusting one row.\n"
}
EOF

{
    echo "# armci-x benchmark comparison, $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores"
    echo "# mode $([ "$QUICK" = 1 ] && echo quick || echo full), $RUNS run(s) per library (alternating)$([ "$SKIPPED" = 1 ] && echo ", some skipped for time")," \
         "$NP ranks, $WHERE, ARMCI_USE_WIN_ALLOCATE=$ARMCI_USE_WIN_ALLOCATE, load at start $LOAD1, at end $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# ours:      ${OURS_LINK[*]} (headers $(which_header -I"$OURS_INC"))${OURS_ENV:+ env: $OURS_ENV}"
    echo "# armci-mpi: ($THEIRS_NAME) ${THEIRS_LINK[*]} (headers $(which_header "${THEIRS_CPP[@]}"))${THEIRS_ENV:+ env: $THEIRS_ENV}"
    echo
    awk -v STATUS="$STATUS" -v BENCHES="${BENCHES[*]}" "$AWK_TABLE" "$STATUS" "$ROWS"
    if grep -qv ' ok$' "$STATUS"; then
        echo
        echo "FAILED runs (logs in $BUILD/logs):"
        grep -v ' ok$' "$STATUS" | while read -r b lib i st; do
            echo "  $b $lib run $i: $st  ($BUILD/logs/$b.$lib.$i.log)"
        done
    fi
    warn=$(cat "$BUILD"/logs/*.log 2>/dev/null | grep '^WARNING' | sort -u)
    if [ -n "$warn" ]; then
        echo
        echo "$warn"
    fi
} >"$TABLE"

echo
cat "$TABLE"
cp "$TABLE" "$SCRIPT_DIR/results-latest.txt" 2>/dev/null &&
    echo "# table written to $SCRIPT_DIR/results-latest.txt (and $TABLE)" ||
    echo "# table written to $TABLE"
echo "# total time $(($(date +%s) - START)) s; logs in $BUILD/logs"
exit "$ANY_FAIL"
