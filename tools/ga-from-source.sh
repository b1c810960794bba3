#!/usr/bin/env bash
# Builds Global Arrays from its source (a git tag) against a given ARMCI and runs GA's own test programs
# (the TESTS list of its Makefile, what `make check` would run) at N ranks, each under a timeout; prints a
# table and `N passed, N failed`.
#
#   tools/ga-from-source.sh --armci ARG [options]
#     --armci ARG     what GA's configure gets as --with-armci=: armci-x's install prefix (ARG/include/armci.h,
#                     ARG/lib/libarmci.*), or a library file such as Debian's ARMCI-MPI
#                     /usr/lib/x86_64-linux-gnu/libarmci-mpich.a (its armci.h is in /usr/include)
#     --name NAME     names this build (default: armcix for a directory, the file's name otherwise)
#     --tag TAG       GA's git tag (default v5.9.2)
#     --git SOURCE    a GA git repository (URL or directory) to clone from when WORK/src-TAG is missing
#                     (default $GA_GIT; no default address: without either, a missing WORK/src-TAG stops the run)
#     --work DIR      where everything goes (default <repo>/_ga, which .gitignore ignores); GA's code never
#                     enters our repository
#     --np "2 4"      rank counts for GA's parallel tests (its serial tests run once, at 1 rank)
#     --timeout S     seconds per program run (default 300)
#     --filter REGEX  run only the tests whose path (e.g. global/testing/test.x) matches
#     --skip REGEX    leave out the tests whose path matches (they are listed as "not run")
#     --cache-from D  seed configure's cache (-C) from build directory D's config.log, minus every result that
#                     concerns ARMCI (armci.h, ARMCI_*/armci_* functions and members) and the precious variables:
#                     the compiler, Fortran and BLAS probes are not repeated (on a loaded machine they take ~30 min)
#     --no-build      reuse the existing build (run tests only)
#     --build-only    build GA and its test programs, run nothing
#     --jobs N        make -j (default 2)
#     --parallel-only leave out GA's serial tests (they run at 1 rank, which a launcher spanning hosts cannot)
#     --label L       adds L to the names of this run's results and logs (e.g. "hosts2" for a run whose MPIEXEC
#                     is tools/simhosts.sh), so that runs of one build under different launchers sit side by side
# MPI: MPICH through its suffixed wrappers (mpicc.mpich, ..., mpiexec.mpich); override with the environment
# variables MPICC, MPICXX, MPIF77, MPIEXEC.  BLAS/LAPACK/ScaLAPACK: -lblas, -llapack, -lscalapack-mpich
# (override with GA_BLAS, GA_LAPACK, GA_SCALAPACK; GA_SCALAPACK=no builds without it).
#
# Why not GA's `make check`: its LOG_COMPILER is a shell fragment (`maybe_mpiexec=...; eval $maybe_mpiexec`)
# written for automake's old inline harness; automake's test-driver receives LOG_COMPILE as the command to run,
# and the `;` cuts that command short.  We read the TESTS, SERIAL_TESTS and XFAIL_TESTS lists from GA's own
# Makefile and run each program ourselves.
#
# Results: WORK/results-NAME-TAG-npN.tsv (test, ranks, result, seconds, exit status) and one log per run in
# WORK/logs-NAME-TAG-npN/ (npN: the rank counts, e.g. np2-4).  A result is PASS (exit 0), FAIL (exit status
# != 0), TIMEOUT, NOBUILD (the program did not build), XFAIL (failed and listed in GA's XFAIL_TESTS) or XPASS.  XFAIL counts as passed, XPASS as failed, as in automake.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
armci="" name="" tag=v5.9.2 git_src="${GA_GIT:-}" work="$repo/_ga"
nps="2 4" tmo=300 filter="" skip="" build=1 run=1 jobs=2 cache_from="" label="" parallel_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --armci) armci="$2"; shift 2 ;;
    --name) name="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --git) git_src="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --np) nps="$2"; shift 2 ;;
    --timeout) tmo="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --skip) skip="$2"; shift 2 ;;
    --cache-from) cache_from="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --build-only) run=0; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    --parallel-only) parallel_only=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ga-from-source: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$armci" ] || { echo "ga-from-source: --armci PREFIX|LIBFILE is required" >&2; exit 2; }
[ -e "$armci" ] || { echo "ga-from-source: --armci '$armci' does not exist" >&2; exit 2; }
[ -n "$name" ] || { if [ -d "$armci" ]; then name=armcix; else name="$(basename "$armci" | sed 's/\.[a-z]*$//')"; fi; }
case "$tmo" in '' | *[!0-9]*) echo "ga-from-source: --timeout wants seconds, got '$tmo'" >&2; exit 2 ;; esac
: "${MPICC:=mpicc.mpich}" "${MPICXX:=mpicxx.mpich}" "${MPIF77:=mpif77.mpich}" "${MPIEXEC:=mpiexec.mpich}"
: "${GA_BLAS:=-lblas}" "${GA_LAPACK:=-llapack}" "${GA_SCALAPACK:=-lscalapack-mpich}"

mkdir -p "$work"
work="$(cd "$work" && pwd)"
src="$work/src-$tag"
bld="$work/build-$name-$tag"
# Named after the rank counts too, so that runs at different counts can go side by side.
runid="$name-$tag-np$(echo $nps | tr ' ' -)${label:+-$label}"
results="$work/results-$runid.tsv"
logs="$work/logs-$runid"

step() { echo "== ga-from-source: $*"; }
# Runs a build step with its output in a file; on failure shows the file's end (the error) and stops.
logged() {
  local out="$1"; shift
  "$@" >"$out" 2>&1 || { tail -n 40 "$out" >&2; echo "ga-from-source: failed: $* (whole output: $out)" >&2; exit 1; }
}

if [ "$build" = 1 ]; then
  if [ ! -d "$src" ]; then
    [ -n "$git_src" ] || { echo "ga-from-source: no GA source in $src: give --git SOURCE (a clone of GlobalArrays/ga, or its address) or set GA_GIT" >&2; exit 2; }
    step "cloning GA $tag from $git_src into $src"
    logged "$work/clone-$tag.out" git clone -q "$git_src" "$src"
    logged "$work/clone-$tag.out" git -C "$src" checkout -q "$tag"
  fi
  if [ ! -x "$src/configure" ]; then
    # GA's autogen.sh downloads its own autotools; the system's are recent enough.
    step "autoreconf -vif in $src (system autotools)"
    (cd "$src" && logged "$work/autoreconf-$tag.out" autoreconf -vif)
  fi
  mkdir -p "$bld"
  cd "$bld"
  if [ ! -f Makefile ]; then
    step "configuring GA in $bld with --with-armci=$armci"
    scalapack=(--with-scalapack="$GA_SCALAPACK")
    [ "$GA_SCALAPACK" != no ] || scalapack=(--without-scalapack)
    # armci-x's libarmci is C++: a static-only install needs the C++ runtime on GA's link lines.
    extra_libs=""
    if [ -d "$armci" ] && [ -f "$armci/lib/libarmci.a" ] && [ ! -e "$armci/lib/libarmci.so" ]; then extra_libs="-lstdc++"; fi
    # A library file goes on every link line through LIBS as well: GA's libga.la, a static libtool library,
    # drops a non-libtool archive from its dependency_libs, so its programs would link without ARMCI.
    case "$armci" in *.a) extra_libs="$extra_libs $armci -lstdc++" ;; esac
    cache=()
    if [ -n "$cache_from" ]; then
      [ -f "$cache_from/config.log" ] || { echo "ga-from-source: no $cache_from/config.log" >&2; exit 1; }
      # config.log ends with the cache variables (name=value, quoted for the shell); keep the ARMCI-free ones.
      sed -n '/^## Cache variables\. ##/,/^## Output variables\. ##/p' "$cache_from/config.log" | grep -E '^[a-z_][a-zA-Z0-9_]*=' |
        grep -viE 'armci|^ac_cv_env_' >"$bld/config.cache"
      cache=(--cache-file="$bld/config.cache")
    fi
    logged "$bld/configure.out" "$src/configure" "${cache[@]}" --with-armci="$armci" \
      CC="$MPICC" CXX="$MPICXX" F77="$MPIF77" MPICC="$MPICC" MPICXX="$MPICXX" MPIF77="$MPIF77" \
      MPIEXEC="$MPIEXEC -n %NP%" LIBS="$extra_libs" \
      --with-blas4="$GA_BLAS" --with-lapack="$GA_LAPACK" "${scalapack[@]}"
  fi
  step "make -j$jobs (output: $bld/make.out)"
  logged "$bld/make.out" make -j"$jobs"
fi
[ -f "$bld/Makefile" ] || { echo "ga-from-source: no build in $bld (run without --no-build)" >&2; exit 1; }

# GA's own lists, expanded by make from its Makefile (conditionals resolved by its configure).
printvar() { make -s -C "$bld" -f Makefile -f - ga-from-source-print VAR="$1" <<<'ga-from-source-print: ; @echo $($(VAR))'; }
read -r -a listed <<<"$(printvar TESTS)"
serial=" $(printvar SERIAL_TESTS) "
xfail=" $(printvar XFAIL_TESTS) "
[ ${#listed[@]} -gt 0 ] || { echo "ga-from-source: GA's TESTS list is empty" >&2; exit 1; }
# The programs to run: GA's list in its order, once each (it names nga-scatter twice), --filter/--skip applied.
tests=() not_run=()
for t in "${listed[@]}"; do
  case " ${tests[*]} ${not_run[*]} " in *" $t "*) continue ;; esac
  if { [ -n "$filter" ] && ! [[ $t =~ $filter ]]; } || { [ -n "$skip" ] && [[ $t =~ $skip ]]; } ||
    { [ "$parallel_only" = 1 ] && [[ $serial == *" $t "* ]]; }; then
    not_run+=("$t")
  else
    tests+=("$t")
  fi
done
if [ "$run" = 0 ]; then
  # Only the programs that would run (all of `make checkprogs` when nothing is filtered out).
  step "building ${#tests[@]} test programs, make -j$jobs (output: $bld/checkprogs.out)"
  (cd "$bld" && logged "$bld/checkprogs.out" make -j"$jobs" -k "${tests[@]}") || true
  echo "ga-from-source: built in $bld"
  exit 0
fi

mkdir -p "$logs"
: >"$results"
step "running ${#tests[@]} GA test programs (ranks: 1 for serial ones, $nps otherwise; timeout ${tmo}s each)"
run_one() {  # TEST RANKS
  local t="$1" np="$2" log status start secs result
  log="$logs/$(echo "$t" | tr / _).np$np.log"
  # Each program is built just before its first run, so that results come in while the rest still builds.
  [ -x "$bld/$t" ] || [ "$build" = 0 ] || make -C "$bld" -j"$jobs" "$t" >>"$bld/checkprogs.out" 2>&1 || true
  if [ ! -x "$bld/$t" ]; then  # its build failed: see checkprogs.out
    printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$np" NOBUILD 0 - >>"$results"
    printf '  %-48s %2s ranks  %-7s\n' "$t" "$np" NOBUILD
    return 0
  fi
  start=$(date +%s%N)
  set +e
  (cd "$bld/$(dirname "$t")" && timeout -k 10 "$tmo" $MPIEXEC -n "$np" "$bld/$t") >"$log" 2>&1 </dev/null
  status=$?
  set -e
  secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  if [ $status -eq 124 ] || [ $status -eq 137 ]; then result=TIMEOUT
  elif [ $status -eq 0 ]; then result=PASS
  else result=FAIL; fi
  case "$xfail" in
    *" $t "*) if [ $result = PASS ]; then result=XPASS; else result=XFAIL; fi ;;
  esac
  printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$np" "$result" "$secs" "$status" >>"$results"
  printf '  %-48s %2s ranks  %-7s %7s s\n' "$t" "$np" "$result" "$secs"
}
for t in "${tests[@]}"; do
  case "$serial" in
    *" $t "*) run_one "$t" 1 ;;
    *) for np in $nps; do run_one "$t" "$np"; done ;;
  esac
done

# The table: one line per program, one column per rank count.
echo
printf '%-48s' program
for np in 1 $nps; do printf ' %-8s' "np=$np"; done
echo
for t in "${tests[@]}"; do
  grep -q "^$t	" "$results" || continue
  printf '%-48s' "$t"
  for np in 1 $nps; do
    r=$(awk -F'\t' -v t="$t" -v n="$np" '$1 == t && $2 == n { print $3 }' "$results")
    printf ' %-8s' "${r:--}"
  done
  echo
done
[ ${#not_run[@]} -eq 0 ] || echo "not run (--filter/--skip): ${not_run[*]}"
passed=$(awk -F'\t' '$3 == "PASS" || $3 == "XFAIL"' "$results" | wc -l)
failed=$(awk -F'\t' '$3 != "PASS" && $3 != "XFAIL"' "$results" | wc -l)
echo "results: $results, logs: $logs/"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
