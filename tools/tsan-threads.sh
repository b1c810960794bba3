#!/usr/bin/env bash
# ThreadSanitizer run of the thread tests (tests/mpi/test_threads): builds the library and the test with
# -fsanitize=thread out of tree in ${ARMCIX_TSAN_BUILD:-<repo>/build-tsan} (a full build: ~15 min on 2
# cores), then runs the test at 2 ranks on the node path and with ARMCI_SHM=0.  Any ThreadSanitizer report
# fails the run.  UCX's malloc/mmap hooks are turned off (UCX_MEM_MALLOC_HOOKS=no,
# UCX_MEM_MMAP_HOOK_MODE=none): with them MPICH over UCX segfaults under TSan before the first transfer.
# Only threads inside one process are checked (TSan cannot see other processes' accesses to shared memory).
# Closing line: "N passed, N failed".
set -u
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${ARMCIX_TSAN_BUILD:-$repo/build-tsan}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
[ -x "$repo/configure" ] || (cd "$repo" && ./autogen.sh >/dev/null)
mkdir -p "$build" && cd "$build" || exit 2
if [ ! -f Makefile ]; then
  "$repo/configure" CFLAGS="-O1 -g -fsanitize=thread" CXXFLAGS="-O1 -g -fsanitize=thread" \
    LDFLAGS="-fsanitize=thread" >configure.out 2>&1 || { tail -20 configure.out; exit 2; }
fi
make -j"$(nproc)" src/libarmci.la tests/mpi/test_threads >make.out 2>&1 || { tail -30 make.out; exit 2; }
passed=0 failed=0
for envs in "" "ARMCI_SHM=0"; do
  log="$build/tsan-threads${envs:+-shm0}.log"
  # shellcheck disable=SC2086
  env UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none TSAN_OPTIONS="halt_on_error=0" $envs \
    timeout 600 "$MPIEXEC" -n 2 ./tests/mpi/test_threads >"$log" 2>&1
  rc=$?
  reports=$(grep -c "WARNING: ThreadSanitizer" "$log")
  if [ "$rc" = 0 ] && [ "$reports" = 0 ]; then
    echo "PASS  test_threads np2 ${envs:-node path} under TSan"; passed=$((passed + 1))
  else
    echo "FAIL  test_threads np2 ${envs:-node path} under TSan (exit $rc, $reports reports; $log)"; failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
