#!/usr/bin/env bash
# ThreadSanitizer run of the thread tests (tests/mpi/test_threads, the ThreadStress tests among them):
# builds the library and that program with -fsanitize=thread out of tree in
# ${ARMCIX_TSAN_BUILD:-<repo>/build-tsan[-openmpi]} (only those two targets), then runs it at 2 ranks on the
# node path, with ARMCI_SHM=0, and with every rank its own node and gets staged (ARMCI_NODE_SIZE=1
# ARMCI_SHR_BUF_METHOD=COPY: requests completed by their own MPI requests while other threads complete the
# process's requests).  Any ThreadSanitizer report fails the run.
#   tools/tsan-threads.sh [--mpi mpich|openmpi]      (default mpich)
# UCX's malloc/mmap hooks are turned off (UCX_MEM_MALLOC_HOOKS=no, UCX_MEM_MMAP_HOOK_MODE=none): with them
# MPICH over UCX segfaults under TSan before the first transfer.  Reports from inside the MPI library are
# suppressed (tools/tsan.supp: MPI is not built for TSan, so its own locks are invisible to it); only
# threads inside one process are checked (TSan cannot see other processes' accesses to shared memory).
# Closing line: "N passed, N failed".
set -u
repo="$(cd "$(dirname "$0")/.." && pwd)"
mpi=mpich
if [ "${1:-}" = --mpi ]; then mpi="${2:-}"; shift 2; fi
case "$mpi" in
  mpich) MPIEXEC="${MPIEXEC:-mpiexec.mpich}" suffix="" ;;
  openmpi) MPIEXEC="${MPIEXEC:-mpiexec.openmpi --allow-run-as-root --oversubscribe}" suffix="-openmpi" ;;
  *) echo "tsan-threads: --mpi takes mpich or openmpi, not '$mpi'" >&2; echo "0 passed, 1 failed"; exit 2 ;;
esac
build="${ARMCIX_TSAN_BUILD:-$repo/build-tsan$suffix}"
[ -x "$repo/configure" ] || (cd "$repo" && ./autogen.sh >/dev/null)
mkdir -p "$build" && cd "$build" || exit 2
if [ ! -f Makefile ]; then
  "$repo/configure" --with-mpi="$mpi" --without-ga --disable-static CFLAGS="-O1 -g -fsanitize=thread" \
    CXXFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" >configure.out 2>&1 ||
    { tail -20 configure.out; echo "0 passed, 1 failed"; exit 2; }
fi
make -j"$(nproc)" src/libarmci.la tests/mpi/test_threads >make.out 2>&1 ||
  { tail -30 make.out; echo "0 passed, 1 failed"; exit 2; }
passed=0 failed=0
for envs in "" "ARMCI_SHM=0" "ARMCI_NODE_SIZE=1 ARMCI_SHR_BUF_METHOD=COPY"; do
  tag="$(tr ' =' '-_' <<< "${envs:-node-path}")"
  log="$build/tsan-threads-$tag.log"
  # shellcheck disable=SC2086 # envs and MPIEXEC are word lists
  env UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none \
    TSAN_OPTIONS="halt_on_error=0 suppressions=$repo/tools/tsan.supp" $envs \
    timeout 600 $MPIEXEC -n 2 ./tests/mpi/test_threads >"$log" 2>&1
  rc=$?
  reports=$(grep -c "WARNING: ThreadSanitizer" "$log")
  if [ "$rc" = 0 ] && [ "$reports" = 0 ]; then
    echo "PASS  test_threads np2 ${envs:-node path} under TSan ($mpi)"; passed=$((passed + 1))
  else
    echo "FAIL  test_threads np2 ${envs:-node path} under TSan ($mpi; exit $rc, $reports reports; $log)"
    grep -A12 "WARNING: ThreadSanitizer" "$log" | head -n 60
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
