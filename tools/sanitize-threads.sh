#!/usr/bin/env bash
# A sanitizer run of the thread tests (tests/mpi/test_threads, the ThreadStress tests among them): builds the
# library and that program with ThreadSanitizer (default) or AddressSanitizer + UBSan out of tree in
# ${ARMCIX_SANITIZE_BUILD:-<repo>/build-{tsan,asan-threads}[-openmpi]} (only those targets), then runs it at 2
# ranks on the node path, with ARMCI_SHM=0, and with every rank its own node and gets staged
# (ARMCI_NODE_SIZE=1 ARMCI_SHR_BUF_METHOD=COPY: requests completed by their own MPI requests while other
# threads complete the process's requests).  Any sanitizer report fails the run.
#   tools/sanitize-threads.sh [--sanitizer thread|address] [--mpi mpich|openmpi]   (defaults: thread, mpich)
# The suite (tools/run-tests.sh) runs ThreadSanitizer on both MPIs (its AddressSanitizer stage covers MPICH;
# AddressSanitizer on Open MPI is run by hand).  UCX's malloc/mmap hooks are turned off (UCX_MEM_MALLOC_HOOKS=no,
# UCX_MEM_MMAP_HOOK_MODE=none): with them MPICH over UCX segfaults under TSan before the first transfer.
# ThreadSanitizer's reports from inside the MPI libraries are suppressed (tools/tsan.supp: MPI is not built
# for it, so its own locks are invisible to it), and so are the memory accesses of the functions it intercepts
# when MPI calls them (ignore_noninstrumented_modules=1): MPI's progress engine, run by whichever thread is in
# MPI, reads the data of another thread's get from the network (readv) straight into that thread's buffer, and
# hands it over through its own atomics, which TSan cannot see (a report "write ... failed to restore the
# stack" at a worker's stack or get buffer, 1 run in 25 under load).  TSan checks threads inside one process
# only (it cannot see other processes' accesses to shared memory).  Closing line: "N passed, N failed".
set -u
repo="$(cd "$(dirname "$0")/.." && pwd)"
mpi=mpich sanitizer=thread
while [ $# -ge 2 ]; do
  case "$1" in
    --mpi) mpi="$2" ;;
    --sanitizer) sanitizer="$2" ;;
    *) break ;;
  esac
  shift 2
done
case "$sanitizer" in
  thread) flags="-O1 -g -fsanitize=thread" tag=tsan report="WARNING: ThreadSanitizer"
    san_env="TSAN_OPTIONS=halt_on_error=0 ignore_noninstrumented_modules=1 suppressions=$repo/tools/tsan.supp" ;;
  address) flags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" tag=asan-threads
    report="ERROR: AddressSanitizer|runtime error:" san_env="ASAN_OPTIONS=detect_leaks=0" ;;
  *) echo "sanitize-threads: --sanitizer takes thread or address, not '$sanitizer'" >&2; echo "0 passed, 1 failed"; exit 2 ;;
esac
case "$mpi" in
  mpich) MPIEXEC="${MPIEXEC:-mpiexec.mpich}" suffix="" ;;
  openmpi) MPIEXEC="${MPIEXEC:-mpiexec.openmpi --allow-run-as-root --oversubscribe}" suffix="-openmpi" ;;
  *) echo "sanitize-threads: --mpi takes mpich or openmpi, not '$mpi'" >&2; echo "0 passed, 1 failed"; exit 2 ;;
esac
build="${ARMCIX_SANITIZE_BUILD:-$repo/build-$tag$suffix}"
[ -x "$repo/configure" ] || (cd "$repo" && ./autogen.sh >/dev/null)
mkdir -p "$build" && cd "$build" || exit 2
if [ ! -f Makefile ]; then
  "$repo/configure" --with-mpi="$mpi" --without-ga --disable-static CFLAGS="$flags" CXXFLAGS="$flags" \
    LDFLAGS="${flags#-O1 -g }" >configure.out 2>&1 ||
    { tail -20 configure.out; echo "0 passed, 1 failed"; exit 2; }
fi
make -j"$(nproc)" src/libarmci.la tests/mpi/test_threads >make.out 2>&1 ||
  { tail -30 make.out; echo "0 passed, 1 failed"; exit 2; }
passed=0 failed=0
for envs in "" "ARMCI_SHM=0" "ARMCI_NODE_SIZE=1 ARMCI_SHR_BUF_METHOD=COPY"; do
  log="$build/threads-$(tr ' =' '-_' <<< "${envs:-node-path}").log"
  # shellcheck disable=SC2086 # envs and MPIEXEC are word lists
  env UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none "$san_env" $envs \
    timeout 600 $MPIEXEC -n 2 ./tests/mpi/test_threads >"$log" 2>&1
  rc=$?
  reports=$(grep -cE "$report" "$log")
  if [ "$rc" = 0 ] && [ "$reports" = 0 ]; then
    echo "PASS  test_threads np2 ${envs:-node path} under $sanitizer sanitizer ($mpi)"; passed=$((passed + 1))
  else
    echo "FAIL  test_threads np2 ${envs:-node path} under $sanitizer sanitizer ($mpi; exit $rc, $reports reports; $log)"
    grep -E -A12 "$report" "$log" | head -n 60
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
