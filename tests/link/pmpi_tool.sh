#!/usr/bin/env bash
# armci-x with a PMPI tool (issue 28; doc/user-guide.md, "Using armci-x with MPI tools").  The tool is the
# usual shape in 10 lines: it defines MPI_Init, MPI_Barrier and MPI_Finalize, counts, and calls PMPI_*; at
# MPI_Finalize it prints what it saw.  The program is a Global Arrays program (Debian's libga-mpich.a) that
# also calls MPI_Barrier on MPI_COMM_WORLD and checks MPI_COMM_WORLD's size against GA_Nnodes().
#   1. without the wrapper library: the tool archive linked ahead of and behind libarmci.a, and the tool
#      preloaded with a shared libarmci: the program passes and the tool sees its calls;
#   2. with libarmcix-mpiwrap: the tool ahead of the wrapper archive (static), the tool preloaded behind the
#      wrapper (LD_PRELOAD=wrapper:tool), the tool preloaded ahead of a linked wrapper (Darshan's way);
#   3. progress ranks (ARMCI_PROGRESS_RANKS=1, 4 processes, 2 simulated nodes) with the tool: pass where the
#      wrapper's MPI_Init runs (preloaded ahead of the tool), else an ARMCI error naming the cause on every
#      rank, within the timeout (never a hang); and without the wrapper library at all, the named error.
# Closing line: "N passed, N failed".
set -u
builddir="${ARMCIX_BUILDDIR:-${top_builddir:-$PWD}}"
srcdir="${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}"
MPICC="${MPICC:-mpicc.mpich}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
libs="$(cd "$builddir/src/.libs" && pwd)"
ga="${GA_LIB:-/usr/lib/x86_64-linux-gnu/libga-mpich.a}"
# The launcher may carry options (Open MPI's: --allow-run-as-root --oversubscribe); ScaLAPACK per MPI.
read -r -a mpiexec <<< "$MPIEXEC"
case "${MPI_FLAVOR:-mpich}" in openmpi) scalapack=openmpi ;; *) scalapack=mpich ;; esac
ga_deps="/usr/lib/x86_64-linux-gnu/libscalapack-$scalapack.so.2.2 -llapack -lblas -lgfortran -lm -lstdc++"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
report() {  # description, verdict (0 = pass), output file
  if [ "$2" = 0 ]; then echo "PASS  $1"; passed=$((passed + 1))
  else echo "FAIL  $1"; [ -n "${3:-}" ] && tail -20 "$3" | sed 's/^/    | /'; failed=$((failed + 1)); fi
}
if [ ! -f "$ga" ]; then echo "SKIP  no Global Arrays library ($ga)"; echo "0 passed, 0 failed"; exit 0; fi

cat >"$tmp/tool.c" <<'CEOF'
#include <mpi.h>
#include <stdio.h>
static int inits, barriers;
int MPI_Init(int *argc, char ***argv) { ++inits; return PMPI_Init(argc, argv); }
int MPI_Barrier(MPI_Comm comm) { ++barriers; return PMPI_Barrier(comm); }
int MPI_Finalize(void) {
  int me = -1; PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  printf("pmpi-tool: process %d saw MPI_Init %d, MPI_Barrier %d\n", me, inits, barriers); fflush(stdout);
  return PMPI_Finalize();
}
CEOF
cat >"$tmp/prog.c" <<'CEOF'
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  int me = GA_Nodeid(), n = GA_Nnodes(), world = 0, dims[1] = {1000}, lo[1], hi[1], bad = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  int g = NGA_Create(C_DBL, 1, dims, "a", NULL);
  double one = 1.0, sum = 0, v[1000];
  GA_Fill(g, &one);
  GA_Sync();
  lo[0] = 0; hi[0] = 999;
  NGA_Get(g, lo, hi, v, NULL);
  for (int i = 0; i < 1000; ++i) sum += v[i];
  GA_Dgop(&sum, 1, "+");
  for (int i = 0; i < 3; ++i) MPI_Barrier(MPI_COMM_WORLD);
  if (world != n || sum != 1000.0 * n) bad = 1;
  GA_Destroy(g);
  GA_Terminate();
  if (me == 0) printf(bad ? "ga-prog: FAILED (MPI_COMM_WORLD %d, GA %d, sum %g)\n" : "ga-prog: ok (%d processes, GA %d)\n", world, n, sum);
  MPI_Finalize();
  return bad;
}
CEOF
( cd "$tmp" && "$MPICC" -O1 -c tool.c -o tool.o && ar rcs libpmpitool.a tool.o &&
  "$MPICC" -O1 -fPIC -shared tool.c -o libpmpitool.so && "$MPICC" -O1 -c prog.c -o prog.o ) >"$tmp/build.log" 2>&1 ||
  { report "build the tool and the program" 1 "$tmp/build.log"; echo "$passed passed, $failed failed"; exit 1; }

link() {  # name, link arguments...
  local name="$1"; shift
  "$MPICC" -o "$tmp/$name" "$tmp/prog.o" "$@" >"$tmp/$name.out" 2>&1  # if it fails, its messages are reported
}
run() {  # output file, np, command...
  local out="$1" np="$2"; shift 2
  timeout --kill-after=10 240 "${mpiexec[@]}" -n "$np" "$@" >"$out" 2>&1 </dev/null
}
tool_saw() {  # output file, processes that must report: the tool saw MPI_Init once and the 3 barriers
  [ "$(grep -cE 'pmpi-tool: process [0-9]+ saw MPI_Init 1, MPI_Barrier ([3-9]|[1-9][0-9]+)$' "$1")" -ge "$2" ]
}
static_armci="$libs/libarmci.a"
static_wrap="$libs/libarmcix-mpiwrap.a"
shared_armci="-L$libs -Wl,-rpath,$libs -larmci"
shared_wrap="-L$libs -Wl,-rpath,$libs -larmcix-mpiwrap -larmci"

# 1. Without the wrapper library.
link ahead "$tmp/libpmpitool.a" "$ga" "$static_armci" $ga_deps &&
  run "$tmp/ahead.out" 2 "$tmp/ahead" && grep -q "ga-prog: ok" "$tmp/ahead.out" && tool_saw "$tmp/ahead.out" 2
report "static tool ahead of libarmci.a: links, GA program passes, the tool sees its calls" $? "$tmp/ahead.out"

link behind "$ga" "$static_armci" "$tmp/libpmpitool.a" $ga_deps &&
  run "$tmp/behind.out" 2 "$tmp/behind" && grep -q "ga-prog: ok" "$tmp/behind.out" && tool_saw "$tmp/behind.out" 2
report "static tool behind libarmci.a: links, passes, the tool sees its calls (not dropped)" $? "$tmp/behind.out"

link shared "$ga" $shared_armci $ga_deps &&
  run "$tmp/preload.out" 2 env LD_PRELOAD="$tmp/libpmpitool.so" "$tmp/shared" &&
  grep -q "ga-prog: ok" "$tmp/preload.out" && tool_saw "$tmp/preload.out" 2
report "tool preloaded, shared libarmci: passes, the tool sees its calls" $? "$tmp/preload.out"

# 2. With the wrapper library.
link wrap_static "$tmp/libpmpitool.a" "$ga" "$static_wrap" "$static_armci" "$static_wrap" $ga_deps &&
  run "$tmp/wrap_static.out" 2 "$tmp/wrap_static" && grep -q "ga-prog: ok" "$tmp/wrap_static.out" &&
  tool_saw "$tmp/wrap_static.out" 2
report "static tool ahead of libarmcix-mpiwrap.a: no multiple definition, passes, the tool sees its calls" $? \
  "$tmp/wrap_static.out"

run "$tmp/wrap_preload.out" 2 env LD_PRELOAD="$libs/libarmcix-mpiwrap.so:$tmp/libpmpitool.so" "$tmp/shared" &&
  grep -q "ga-prog: ok" "$tmp/wrap_preload.out" && tool_saw "$tmp/wrap_preload.out" 2
report "LD_PRELOAD=libarmcix-mpiwrap.so:tool: passes, the tool behind the wrappers sees the calls" $? \
  "$tmp/wrap_preload.out"

link wrap_shared "$ga" $shared_wrap $ga_deps &&
  run "$tmp/wrap_linked.out" 2 env LD_PRELOAD="$tmp/libpmpitool.so" "$tmp/wrap_shared" &&
  grep -q "ga-prog: ok" "$tmp/wrap_linked.out" && tool_saw "$tmp/wrap_linked.out" 2
report "-larmcix-mpiwrap linked, tool preloaded ahead of it: passes, the tool sees its calls" $? "$tmp/wrap_linked.out"

# 3. Progress ranks with the tool: pass, or a named error on every rank; never a hang (rc 124 / 137).
pr=(env ARMCI_PROGRESS_RANKS=1 ARMCI_NODE_SIZE=2)
run "$tmp/pr_preload.out" 4 "${pr[@]}" LD_PRELOAD="$libs/libarmcix-mpiwrap.so:$tmp/libpmpitool.so" "$tmp/shared" &&
  grep -q "ga-prog: ok (2 processes, GA 2)" "$tmp/pr_preload.out" && tool_saw "$tmp/pr_preload.out" 2
report "progress ranks, LD_PRELOAD=wrapper:tool: passes on the 2 program ranks, the tool sees them" $? \
  "$tmp/pr_preload.out"

named_error() {  # output file, rc, wanted text
  [ "$2" -ne 0 ] && [ "$2" -ne 124 ] && [ "$2" -ne 137 ] && grep -qF -- "$3" "$1" &&
    grep -qF -- "ARMCI_PROGRESS_RANKS=1" "$1"
}
run "$tmp/pr_static.out" 4 "${pr[@]}" "$tmp/wrap_static"; rc=$?
named_error "$tmp/pr_static.out" $rc "without armci-x's MPI_Init"
report "progress ranks, static tool ahead of the wrapper (took MPI_Init): named error, exit $rc" $? "$tmp/pr_static.out"

run "$tmp/pr_tool_first.out" 4 "${pr[@]}" LD_PRELOAD="$tmp/libpmpitool.so" "$tmp/wrap_shared"; rc=$?
named_error "$tmp/pr_tool_first.out" $rc "without armci-x's MPI_Init"
report "progress ranks, tool preloaded ahead of a linked wrapper: named error, exit $rc" $? "$tmp/pr_tool_first.out"

run "$tmp/pr_nowrap.out" 4 "${pr[@]}" LD_PRELOAD="$tmp/libpmpitool.so" "$tmp/shared"; rc=$?
named_error "$tmp/pr_nowrap.out" $rc "libarmcix-mpiwrap"
report "progress ranks without the wrapper library: named error, exit $rc" $? "$tmp/pr_nowrap.out"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
