#!/usr/bin/env bash
# scale.sh -- the scale benchmark (scale.c, scale_ga.c; issue 30) at several rank counts, on one node and
# on MPICH cliques (MPIR_CVAR_NUM_CLIQUES=k: MPICH itself treats the machine as k nodes, both libraries
# alike), side by side with ARMCI-MPI through benchmarks/compare.sh, plus raw-MPI probes of MPI's own cost
# per window.  Prints one table with ratios to ARMCI-MPI.
#
# usage: benchmarks/scale.sh [--ranks 4,16,32,64] [--cliques 8] [--layouts node,cliques,hosts] [--timeout SEC]
#                            [--runs N] [--out DIR] [--ours LIB] [--ours-include DIR] [--no-ga] [--no-probe]
#                            [--marginal-regions N] [--large-bytes B] [--large-only]
#
#   --cliques K   cliques at every rank count: min(K, ranks / 2) (default 8: 2 cliques at 4 ranks); the same
#                 number of simulated hosts in the hosts layout
#   --layouts     node (one node), cliques (MPICH's MPIR_CVAR_NUM_CLIQUES: one machine as k nodes, which
#                 armci-x then asks MPI for), hosts (k simulated hosts, tools/simhosts.sh: a Hydra proxy and a
#                 network namespace each, TCP between them; needs root; compare.sh --hosts; the large,
#                 marginal and probe runs are left out there)
#   --timeout     per run (default 900: 64 ranks on 2 cores are slow); the programs run with --quick (3 reps)
#   --marginal-regions N  armci-x's marginal memory per allocation is read from a run of its own with N live
#                 regions, over allocations 530..N (scale --memory-only --marginal-from 530: all in the pool's
#                 fourth segment, so no segment's window is counted; default 1000, 0: no such run; 80 s to
#                 30 min per layout at 64 ranks on 2 cores, by load).  ARMCI-MPI's new-region ARMCI_Malloc is too slow for that
#                 many at 64 ranks (~2 s each), and its 55-90 KB per allocation need no more than the 32 of
#                 the main run
#   --large-bytes B  large allocations (default 524288: 512 KiB per rank, above the small pool's block limit
#                 of 256 KiB): 24 live regions of B bytes, scale --memory-only, three runs per layout and rank
#                 count -- armci-x by default (pooled), armci-x with a segment and window each (the small pool
#                 of before: ARMCI_POOL_MB=8 ARMCI_POOL_BLOCK_KB=256) and ARMCI-MPI -- printed as a second
#                 table (0: none)
#   --large-only  only the large-allocation runs (compare.sh --build-only builds both libraries)
#   --out DIR     where compare.sh's build dirs and logs go (default /tmp/armcix-scale.XXXXXX); the table
#                 is DIR/table.txt
#   --table ROWS  no runs: print the table of an earlier run's DIR/rows.txt (or several, concatenated)
# Other options go to compare.sh as they are.  Exit status 1 if any run failed.
set -u
# Every run without glibc's per-thread cache of freed chunks: mallinfo2 counts a chunk in that cache as in
# use, so the temporaries a call frees (gathers sized by the number of ranks) read as memory per live
# allocation.  With the cache (the default before 2026-11-27) armci-x's heap per allocation read 402 B at 4
# ranks and ~480 at 64; without it 415.5 and 416.7, and a heap profile of rank 0 (every allocation live at the
# second reading, by call stack) is the same 12,592 B at 4 and 64 ranks.  Both libraries run alike.
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.tcache_count=0"
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RANKS=4,16,32,64
CLIQUES=8
LAYOUTS=node,cliques
TIMEOUT=900
MARGINAL_REGIONS=1000
LARGE_BYTES=524288
LARGE_ONLY=0
RUNS=1
OUT=""
GA=1
PROBE=1
PASS=()
TABLE_ONLY=""
THEIRS_LABEL=armci-mpi
while [ "$#" -gt 0 ]; do
    case "$1" in
        --ranks) RANKS=$2; shift 2 ;;
        --cliques) CLIQUES=$2; shift 2 ;;
        --layouts) LAYOUTS=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --marginal-regions) MARGINAL_REGIONS=$2; shift 2 ;;
        --large-bytes) LARGE_BYTES=$2; shift 2 ;;
        --large-only) LARGE_ONLY=1; shift ;;
        --runs) RUNS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --no-ga) GA=0; shift ;;
        --no-probe) PROBE=0; shift ;;
        --table) TABLE_ONLY=$2; shift 2 ;;
        --ours|--ours-include|--theirs|--theirs-include|--theirs-name|--ours-env|--theirs-env) PASS+=("$1" "$2"); shift 2 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "scale.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -n "$TABLE_ONLY" ]; then
    OUT=$(mktemp -d /tmp/armcix-scale-table.XXXXXX)
    cat $TABLE_ONLY >"$OUT/rows.txt" || exit 2
    RANKS="" LAYOUTS=""
fi
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/armcix-scale.XXXXXX)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BENCHES=(scale)
[ "$GA" = 1 ] && BENCHES+=(scale_ga)
ANY_FAIL=0
ROWS="$OUT/rows.txt"
[ -n "$TABLE_ONLY" ] || : >"$ROWS"
echo "# scale.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), out $OUT"
rank_list=() layout_list=()
[ -n "$RANKS" ] && IFS=, read -r -a rank_list <<<"$RANKS"
[ -n "$LAYOUTS" ] && IFS=, read -r -a layout_list <<<"$LAYOUTS"
for layout in "${layout_list[@]}"; do
    for np in "${rank_list[@]}"; do
        k=1
        hosts_args=()
        if [ "$layout" = cliques ] || [ "$layout" = hosts ]; then
            k=$((np / 2 < CLIQUES ? np / 2 : CLIQUES))
            [ "$k" -ge 2 ] || continue
        fi
        if [ "$layout" = hosts ]; then
            [ $((np % k)) = 0 ] || { echo "# hosts: $np ranks do not divide over $k hosts; skipped"; continue; }
            hosts_args=(--hosts "$k")
        fi
        dir="$OUT/$layout-$np"
        mkdir -p "$dir"
        echo "# $layout, $np ranks, k = $k, load $(cut -d' ' -f1 /proc/loadavg)"
        if [ "$layout" = cliques ]; then export MPIR_CVAR_NUM_CLIQUES=$k; else unset MPIR_CVAR_NUM_CLIQUES; fi
        if [ "$LARGE_ONLY" = 1 ]; then  # builds only
            "$SCRIPT_DIR/compare.sh" --quick --np "$np" --build-only --build-dir "$dir" "${PASS[@]}" scale \
                >"$dir/compare.out" 2>&1 || ANY_FAIL=1
        else
            "$SCRIPT_DIR/compare.sh" --quick --np "$np" --runs "$RUNS" --timeout "$TIMEOUT" --budget 0 --build-dir "$dir" \
                ${hosts_args[@]+"${hosts_args[@]}"} "${PASS[@]}" "${BENCHES[@]}" >"$dir/compare.out" 2>&1 || ANY_FAIL=1
            grep -E '^  (scale|scale_ga) ' "$dir/compare.out" | sed 's/^/  /'
            awk -v L="$layout" -v K="$k" '{ print L, K, $0 }' "$dir/rows.txt" >>"$ROWS"
        fi
        if [ "$layout" = hosts ]; then echo "#   done, load $(cut -d' ' -f1 /proc/loadavg)"; continue; fi
        if [ "$LARGE_BYTES" -gt 0 ]; then
            for lib in ours each armci-mpi; do
                bin="$dir/ours/scale" envv=()
                [ "$lib" = each ] && envv=(ARMCI_POOL_MB=8 ARMCI_POOL_BLOCK_KB=256)
                [ "$lib" = armci-mpi ] && bin="$dir/armci-mpi/scale"
                env ${envv[@]+"${envv[@]}"} ARMCI_USE_WIN_ALLOCATE=0 timeout -k 10 "$TIMEOUT" mpiexec.mpich -n "$np" "$bin" \
                    --memory-only --regions 24 --bytes "$LARGE_BYTES" --marginal-from 12 </dev/null \
                    >"$dir/logs/large.$lib.log" 2>&1 || { ANY_FAIL=1; echo "  large $lib: FAILED ($dir/logs/large.$lib.log)"; }
                awk -v L="$layout" -v K="$k" -v B="large-$lib" '$1 == "RESULT" && NF == 6 { print L, K, B, $0 }' \
                    "$dir/logs/large.$lib.log" >>"$ROWS"
            done
        fi
        if [ "$MARGINAL_REGIONS" -gt 0 ] && [ "$LARGE_ONLY" = 0 ]; then
            timeout -k 10 $((TIMEOUT * 3)) mpiexec.mpich -n "$np" "$dir/ours/scale" --memory-only --regions "$MARGINAL_REGIONS" \
                --marginal-from $((MARGINAL_REGIONS > 530 ? 530 : MARGINAL_REGIONS / 2)) \
                </dev/null >"$dir/logs/marginal.log" 2>&1 || { ANY_FAIL=1; echo "  marginal: FAILED ($dir/logs/marginal.log)"; }
            awk -v L="$layout" -v K="$k" '$1 == "RESULT" && $3 == "marginal_rss_per_alloc" { print L, K, "ours", $0 }' \
                "$dir/logs/marginal.log" >>"$ROWS"
        fi
        # MPI's own cost per window (no ARMCI): ARMCI-MPI's kind, and armci-x's across nodes; and per call of
        # the allreduce a pooled ARMCI_Malloc makes, and the allgather it made until 2026-11-28 (what MPI maps
        # as traffic first reaches its peers)
        [ "$PROBE" = 1 ] && [ "$LARGE_ONLY" = 0 ] && for kind in create shmcreate allgather allreduce; do
            timeout -k 10 "$TIMEOUT" mpiexec.mpich -n "$np" "$dir/ours/scale" --probe "$kind" </dev/null \
                >"$dir/logs/probe.$kind.log" 2>&1 || { ANY_FAIL=1; echo "  probe $kind: FAILED ($dir/logs/probe.$kind.log)"; }
            awk -v L="$layout" -v K="$k" '$1 == "RESULT" && NF == 6 { print L, K, "mpi", $0 }' \
                "$dir/logs/probe.$kind.log" >>"$ROWS"
        done
        echo "#   done, load $(cut -d' ' -f1 /proc/loadavg)"
    done
done
unset MPIR_CVAR_NUM_CLIQUES

# rows: <layout> <k> <lib> RESULT <bench> <variant> <np> <value> <unit>
awk '
function med(key,    n, i, j, a, x) {
    n = cnt[key]; if (!n) return ""
    for (i = 1; i <= n; i++) a[i] = v[key, i]
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function get(lib, var) { return med(cfg SUBSEP lib SUBSEP var) }
function f(x) { return x == "" ? "-" : (x >= 100 || x <= -100) ? sprintf("%.0f", x) : sprintf("%.2g", x) }
function r(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
$4 == "RESULT" {
    c = $1 " " $7 " " $2
    if (!(c in seen)) { seen[c] = 1; order[++n] = c }
    key = c SUBSEP $3 SUBSEP $6
    cnt[key]++; v[key, cnt[key]] = $8 + 0
}
END {
    printf "%-8s %5s %4s | %9s %9s %5s | %7s | %8s %8s | %9s %9s %9s %9s | %8s %8s %5s | %9s %9s %5s | %9s %9s %5s | %8s %8s %5s | %8s %8s | %9s %9s %5s\n",
        "layout", "ranks", "k", "rss/alloc", "a-m", "ratio", "marg", "heap", "a-m", "MPI:crt", "MPI:shcr", "MPI:ag", "MPI:ar",
        "init ms", "a-m", "ratio", "malloc us", "a-m", "ratio", "mal+fr us", "a-m", "ratio", "barr us", "a-m", "ratio",
        "GA rss/a", "a-m", "GA c+d us", "a-m", "ratio"
    for (i = 1; i <= n; i++) {
        cfg = order[i]; split(cfg, p, " ")
        o = get("ours", "rss_per_alloc"); t = get("armci-mpi", "rss_per_alloc")
        printf "%-8s %5s %4s | %9s %9s %5s | %7s | %8s %8s | %9s %9s %9s %9s | %8s %8s %5s | %9s %9s %5s | %9s %9s %5s | %8s %8s %5s | %8s %8s | %9s %9s %5s\n",
            p[1], p[2], p[3], f(o), f(t), r(o, t), f(get("ours", "marginal_rss_per_alloc")), f(get("ours", "heap_per_alloc")), f(get("armci-mpi", "heap_per_alloc")),
            f(get("mpi", "probe_create_rss_per_alloc")), f(get("mpi", "probe_shmcreate_rss_per_alloc")),
            f(get("mpi", "probe_allgather_rss_per_alloc")), f(get("mpi", "probe_allreduce_rss_per_alloc")),
            f(get("ours", "init")), f(get("armci-mpi", "init")), r(get("ours", "init"), get("armci-mpi", "init")),
            f(get("ours", "malloc_new")), f(get("armci-mpi", "malloc_new")), r(get("ours", "malloc_new"), get("armci-mpi", "malloc_new")),
            f(get("ours", "malloc_free_reused")), f(get("armci-mpi", "malloc_free_reused")),
            r(get("ours", "malloc_free_reused"), get("armci-mpi", "malloc_free_reused")),
            f(get("ours", "barrier")), f(get("armci-mpi", "barrier")), r(get("ours", "barrier"), get("armci-mpi", "barrier")),
            f(get("ours", "ga_rss_per_array")), f(get("armci-mpi", "ga_rss_per_array")),
            f(get("ours", "ga_create_destroy")), f(get("armci-mpi", "ga_create_destroy")),
            r(get("ours", "ga_create_destroy"), get("armci-mpi", "ga_create_destroy"))
    }
    print ""
    print "rss/alloc: resident bytes per live 4 KiB ARMCI_Malloc beyond its data (mean over ranks), heap: malloc'"'"'d bytes per"
    print "allocation (library + MPI tables); marg: armci-x'"'"'s data pages per allocation over allocations 530 to"
    print "--marginal-regions (scale --memory-only: the slope within one pool segment, page noise / 470);"
    print "MPI:crt / MPI:shcr: raw MPI resident bytes per window (no ARMCI), MPI_Win_create"
    print "(ARMCI-MPI'"'"'s window) / MPI_Win_allocate_shared + MPI_Win_create (armci-x'"'"'s window spanning nodes); MPI:ag: raw"
    print "MPI resident bytes per MPI_Iallgather of 24 B per rank (a pooled ARMCI_Malloc'"'"'s one collective until 2026-11-28);"
    print "MPI:ar: the same per MPI_Iallreduce of 8 longs (its collective now); times: max over"
    print "ranks, median; ratios ours / ARMCI-MPI (a-m), below 1 = armci-x cheaper.  k = MPICH cliques or simulated hosts (1: one node)."
    large = 0
    for (i = 1; i <= n; i++) { cfg = order[i]; if (get("large-ours", "rss_per_alloc") != "") large = 1 }
    if (!large) exit
    print ""
    printf "%-8s %5s %4s | %9s %9s %9s %9s %5s | %8s %8s %8s | %9s %9s\n", "layout", "ranks", "k", "L:rss/a", "L:each",
        "L:a-m", "L:marg", "ratio", "L:heap", "L:each", "L:a-m", "each marg", "a-m marg"
    for (i = 1; i <= n; i++) {
        cfg = order[i]; split(cfg, p, " ")
        o = get("large-ours", "rss_per_alloc"); t = get("large-armci-mpi", "rss_per_alloc")
        if (o == "" && t == "") continue
        printf "%-8s %5s %4s | %9s %9s %9s %9s %5s | %8s %8s %8s | %9s %9s\n", p[1], p[2], p[3], f(o),
            f(get("large-each", "rss_per_alloc")), f(t), f(get("large-ours", "marginal_rss_per_alloc")), r(o, t),
            f(get("large-ours", "heap_per_alloc")), f(get("large-each", "heap_per_alloc")), f(get("large-armci-mpi", "heap_per_alloc")),
            f(get("large-each", "marginal_rss_per_alloc")), f(get("large-armci-mpi", "marginal_rss_per_alloc"))
    }
    print ""
    print "Large allocations (--large-bytes, 24 live regions): L:rss/a armci-x by default (pooled: a window per pool"
    print "segment), L:each armci-x with ARMCI_POOL_MB=8 ARMCI_POOL_BLOCK_KB=256 (a segment and, across nodes, an MPI"
    print "window each), L:a-m ARMCI-MPI;"
    print "marg: the slope over allocations 12..24; ratio: armci-x default / ARMCI-MPI."
}' "$ROWS" | tee "$OUT/table.txt"
echo "# scale.sh: end $(date -u '+%H:%M:%S UTC'), load $(cut -d' ' -f1-3 /proc/loadavg); table in $OUT/table.txt"
exit "$ANY_FAIL"
