#!/usr/bin/env bash
# The README's second command (and CI's): installs what is needed, builds with warnings as errors, and
# runs the whole test suite (tests/manifest.txt: unit, MPI at 2-4 ranks under every engine setting,
# simulated nodes, GA integration, error paths; tests/classic and tests/gasuite: re-created classic ARMCI,
# ARMCI-MPI and GA test programs), then runs across MPI nodes (MPICH cliques, simulated hosts, fault
# tests: tests/multinode; ARMCIX_SKIP_MULTINODE=1 leaves them out; Slurm across simulated hosts:
# tests/multinode/slurm.sh, ARMCIX_SKIP_SLURM=1 leaves it out), then valgrind memcheck on the 2-rank runs of the main MPI test programs
# and an AddressSanitizer/UBSan build of the unit, msg, core, strided, IOV, sync, nb, node-path and group
# tests (both also on four classic programs); then the whole suite again built against Open MPI
# (ARMCIX_SKIP_OPENMPI=1 leaves that stage out).  Closing line: "N passed, N failed".
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
"$repo/tools/install-deps.sh" || { echo "run-tests: installing the packages failed (see above)" >&2; echo "0 passed, 1 failed"; exit 1; }
start=$(date +%s)
# build.sh prints why a step failed on standard error, which this pipe leaves on the terminal.
build="$("$repo/tools/build.sh" | tail -n 1)" || { echo "run-tests: the build failed (see above)" >&2; echo "0 passed, 1 failed"; exit 1; }
cd "$build" || exit 1
total_pass=0 total_fail=0
# Manifest lines the Open MPI stage leaves out, and why:
# - the eight "-tcp" lines: they differ from their "-nodes" twins only by UCX_TLS=tcp,self, which steers
#   MPICH's UCX device; Open MPI here uses ob1/vader and osc/rdma, not UCX, so they would run the same
#   thing again (core-tcp and strided-tcp: 2 and 4 minutes under load);
# - sync-queue.np4: the QUEUE mutex's busy trylock loop (test_sync, TrylockAndLockExcludeEachOther) against
#   exclusive MPI_Win_lock epochs starves in Open MPI 4.1's osc/rdma lock (sched_yield loops in
#   ompi_osc_rdma_lock_atomic/unlock_atomic): 182 s once, over 60 s at 3 and 4 ranks in other runs;
#   OMPI_MCA_osc=pt2pt passes it in 11 s.  sync-queue.np2 stays in (doc/user-guide.md).
# - distcheck.np0: the tarball's contents and build do not depend on the MPI, and its link tests already
#   run against this build (install-prefix, cmake-consumer); ~4 minutes.
openmpi_exclude='^((shm|core|strided|nb|groups|msg|sync)-tcp\.np[0-9]+|sync-queue\.np4|distcheck\.np0)$'
stage_start=$(date +%s)
tally() {  # adds a check.sh run's closing line to the totals, and says how long the stage took
  local now; now=$(date +%s)
  echo "== stage ${1%.out} took $((now - stage_start)) s (load $(cut -d' ' -f1 /proc/loadavg))"
  stage_start=$now
  local line; line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)"
  [ -n "$line" ] || { total_fail=$((total_fail + 1)); return; }
  total_pass=$((total_pass + $(cut -d' ' -f1 <<< "$line")))
  total_fail=$((total_fail + $(cut -d' ' -f3 <<< "$line")))
}
echo "== test suite"
"$repo/tests/check.sh" ${ARMCIX_CHECK_ARGS:-} | tee suite.out
tally suite.out
if [ "${ARMCIX_SKIP_MULTINODE:-0}" != 1 ]; then
  # MPI itself sees several nodes (issue 12; tests/multinode/lines.txt, doc/contributing.md "Several nodes").
  # Picked to cover each layout once at small cost: round-robin nodes (MPICH cliques) broke GA's start-up
  # and ARMCI_NODE_SIZE, so that stage runs the GA programs that build groups from the topology (core,
  # mirrored arrays, pgtest, test.F), the core and node-path programs with and without the contradicting
  # ARMCI_NODE_SIZE=2, three classic programs, the msg scopes (a domain is a run of one node's ranks) and
  # the abort cases (17 s: those that need one node skip, node-sync's mismatches meet the collective timeout);
  # odd-even gives the same 4-rank layout by another CVAR, so only the contradicting-ARMCI_NODE_SIZE cases;
  # 2 hosts x 2 ranks (TCP between hosts, shared memory within) runs the core, strided, sync, nb, groups,
  # msg and node-path programs, the classic ARMCI test and two GA programs, core and strided again over TCP
  # proper (UCX_TLS=tcp,self), and progress ranks (one program and one progress rank per host); 3 hosts x 1
  # rank (every rank its own node, odd rank count) the sync, msg and GA core programs.  Then the fault tests.
  # Measured on 2 cores shared with other jobs (load ~20): cliques ~270 s, odd-even 62 s, 2x2 197 s, 3x1
  # 54 s, faults 59 s: ~11 min there, less on a quiet machine.
  # Simulated hosts and faults need root and are skipped otherwise.
  mn="$repo/tests/multinode/lines.txt"
  # ARMCIX_SKIP_CLIQUES=1 leaves the two cliques stages out (.ci/run runs them on one platform only: they
  # test our topology code under a layout MPICH's CVARs make, the same mechanism in MPICH 4.0 and 4.2).
  if [ "${ARMCIX_SKIP_CLIQUES:-0}" != 1 ]; then
  echo "== across nodes: MPICH cliques (4 ranks, nodes {0,2} {1,3})"
  "$repo/tests/check.sh" --manifest "$mn" --cliques 2 \
    --filter '^mn-(model|model-threads|core|core-nodes2|shm|shm-nodes2|shm-group-windows|shm-small-pool|groups|nb-waitproc-copy|threads-stress|classic-(mutex|groups|igop)|msg|ga-core|ga-core-window-each|gasuite-(mirror|pgtest|testf)|abort-cases)\.' | tee mn-cliques.out
  tally mn-cliques.out
  echo "== across nodes: MPICH odd/even cliques (4 ranks)"
  "$repo/tests/check.sh" --manifest "$mn" --cliques odd-even --filter '^mn-(core-nodes2|shm-nodes2|ga-core-nodes2|classic-igop)\.' | tee mn-oddeven.out
  tally mn-oddeven.out
  fi
  echo "== across nodes: 2 simulated hosts x 2 ranks"
  "$repo/tests/check.sh" --manifest "$mn" --hosts 2x2 \
    --filter '^mn-(model|model-tcp|model-threads|core|core-tcp|core-window-each|core-nodes-mpi|strided|strided-tcp|sync|sync-shm0|nb|nb-waitproc-copy|threads-stress|groups|msg|shm|shm-small-pool|classic-armci|ga-core|ga-core-window-each|gasuite-mirror|progress-ranks|progress-ga-core|progress-classic-armci|progress-handoff|progress-handoff-ga-core)\.' | tee mn-2x2.out
  tally mn-2x2.out
  echo "== across nodes: 3 simulated hosts x 1 rank"
  "$repo/tests/check.sh" --manifest "$mn" --hosts 3x1 --filter '^mn-(sync|msg|ga-core)\.' | tee mn-3x1.out
  tally mn-3x1.out
  echo "== faults across simulated hosts (peer killed; link down with ARMCI_WATCHDOG_S)"
  "$repo/tests/multinode/faults.sh" | tee mn-faults.out
  tally mn-faults.out
  # Slurm across 2 simulated hosts (issue 52; tools/slurm-hosts.sh, doc/user-guide.md "Running under
  # Slurm"): srun --mpi=pmi2 on MPICH runs the GA demo, two GA tests, the classic ARMCI test and the Topology
  # tests at 2 hosts x 2 ranks, an sbatch job, progress ranks and a killed task (srun -K).  Needs root and
  # Slurm (skipped otherwise); ARMCIX_SKIP_SLURM=1 leaves it out.  The Open MPI cases run in the Open MPI
  # stage below, where the Open MPI build exists.  Debian 13's Slurm 24.11 runs it too (install-deps.sh
  # installs it there; .ci/run leaves it out there for time, see its header).
  if [ "${ARMCIX_SKIP_SLURM:-0}" != 1 ]; then
    echo "== Slurm across 2 simulated hosts (srun, sbatch; MPICH)"
    "$repo/tests/multinode/slurm.sh" srun-ga-demo srun-topology srun-ga-core srun-ga-patches srun-classic-armci \
      sbatch-ga-demo srun-progress-ranks srun-kill | tee mn-slurm.out
    tally mn-slurm.out
  fi
fi
if [ "${ARMCIX_SKIP_MEMCHECK:-0}" != 1 ]; then
  echo "== valgrind memcheck (2 ranks: msg, core, strided, sync, nb, node-path and group tests, 4 classic programs)"
  # 40 allocation cycles instead of 10,000 in the core stress test: under valgrind each costs ~10 ms.
  # ARMCIX_VALGRIND_FILTER narrows it (.ci/run: a few programs in the Debian 13 root, where MPICH 4.2.1's
  # own msync probe needs its suppression); ARMCIX_SKIP_ASAN=1 leaves the sanitizer build out.
  ARMCIX_TEST_MALLOC_CYCLES=40 "$repo/tests/check.sh" --valgrind \
    --filter "${ARMCIX_VALGRIND_FILTER:-^(msg|core|strided|sync|nb|shm|groups|classic-(armci-test|nb|msg|mutex))\.np2\$}" |
    tee valgrind.out
  tally valgrind.out
fi
if [ "${ARMCIX_SKIP_MEMCHECK:-0}" != 1 ] && [ "${ARMCIX_SKIP_ASAN:-0}" != 1 ]; then
  echo "== AddressSanitizer + UBSan build"
  # Only the programs this stage runs are built (instrumented, all of them took ~10 of its 11 minutes).
  # (The filter used to name unit, but only .np2 lines matched it: the unit tests have not run under the
  # sanitizers yet; adding them is open.)
  asan_programs="$(printf 'tests/mpi/test_%s ' core msg shm sync strided nb groups threads)"
  asan_programs+="$(printf ' tests/classic/%s' armci_test test_mutex test_msg nb_overlap)"
  # --disable-static: libtool would compile every library source twice (PIC and not), and these programs
  # link the shared library anyway.
  asan="$(ARMCIX_BUILD="$build-asan" ARMCIX_BUILD_PROGRAMS="$asan_programs" "$repo/tools/build.sh" --enable-sanitizers --disable-static | tail -n 1)" ||
    { echo "FAIL asan build"; total_fail=$((total_fail + 1)); }
  if [ -n "${asan:-}" ]; then
    (cd "$asan" && ASAN_OPTIONS=detect_leaks=0 "$repo/tests/check.sh" --filter '^(msg|core|strided|iov-batched|sync|nb|shm|groups|threads|threads-nodes-copy|classic-(armci-test|nb|msg|mutex))\.np2$') | tee asan.out
    tally asan.out
  fi
fi
if [ "${ARMCIX_SKIP_TSAN:-0}" != 1 ]; then
  # The thread tests (tests/mpi/test_threads, ThreadStress among them) under ThreadSanitizer on MPICH and on
  # Open MPI: a small instrumented build of the library and that one program each (tools/sanitize-threads.sh).
  # AddressSanitizer runs them on MPICH in the stage above; on Open MPI by hand (tools/sanitize-threads.sh
  # --sanitizer address --mpi openmpi: ~100 s, a build of its own, clean so far), to keep CI within its hour.
  echo "== ThreadSanitizer on the thread tests: MPICH and Open MPI"
  { "$repo/tools/sanitize-threads.sh" --sanitizer thread --mpi mpich
    "$repo/tools/sanitize-threads.sh" --sanitizer thread --mpi openmpi; } 2>&1 | tee sanitize-threads.out
  # Two closing lines: one total.
  awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $1; f += $3 } END { printf "%d passed, %d failed\n", p, f }' \
    sanitize-threads.out > sanitize-threads-total.out
  tally sanitize-threads-total.out
fi
if [ "${ARMCIX_SKIP_OPENMPI:-0}" != 1 ]; then
  # The same suite built against Open MPI 4.1 (configure --with-mpi=openmpi: mpicc.openmpi, GA's
  # libga-openmpi.a, MPIEXEC with --allow-run-as-root --oversubscribe).  Left out, with the reasons:
  # openmpi_exclude above (the environment variable OPENMPI_EXCLUDE replaces it).  Settings a user needs on
  # Open MPI are in doc/user-guide.md ("Known MPI problems").
  echo "== Open MPI build and test suite"
  ompi_start=$(date +%s)
  ompi="$(ARMCIX_BUILD="$build-openmpi" "$repo/tools/build.sh" --with-mpi=openmpi | tail -n 1)" ||
    { echo "FAIL Open MPI build"; total_fail=$((total_fail + 1)); ompi=""; }
  if [ -n "$ompi" ]; then
    # Yield while waiting, as Open MPI does by itself only when it knows the node is oversubscribed: on a
    # machine shared with other jobs even 2-rank runs otherwise spin against their own peer.
    # ARMCIX_OPENMPI_CHECK_ARGS (default ARMCIX_CHECK_ARGS): check.sh options for this stage only.
    # ARMCIX_OPENMPI_FILTER (a regex of line names): only those lines (.ci/run on Debian 12, where Open MPI
    # 4.1 runs the lines that reach Open MPI's own code paths; Open MPI 5 runs them all on Debian 13).
    # ARMCIX_OPENMPI_EXCLUDE_MORE: a regex of more lines to leave out (.ci/run on Debian 12).
    exclude="${OPENMPI_EXCLUDE:-$openmpi_exclude}${ARMCIX_OPENMPI_EXCLUDE_MORE:+|^($ARMCIX_OPENMPI_EXCLUDE_MORE)\$}"
    (cd "$ompi" && OMPI_MCA_mpi_yield_when_idle=1 "$repo/tests/check.sh" --exclude "$exclude" \
      ${ARMCIX_OPENMPI_FILTER:+--filter "$ARMCIX_OPENMPI_FILTER"} ${ARMCIX_OPENMPI_CHECK_ARGS-${ARMCIX_CHECK_ARGS:-}}) |
      tee openmpi.out
    tally openmpi.out
  fi
  # Open MPI across 2 simulated hosts x 2 ranks (simhosts.sh --mpi openmpi: pml and osc ucx over TCP):
  # the quick multinode lines and mn-accv, the ARMCI_AccV case osc ucx crashed in before the I/O-vector
  # DIRECT engine packed accumulate origins.  Measured 2026-11-24 14:45 (load 6): 11 lines in ~70 s; on
  # Debian 13 (Open MPI 5.0.7), 2026-11-29: 13 lines in 106 s, the first time really across 2 hosts (until
  # then simhosts.sh let Open MPI 5 put every rank on host 0).  mn-classic-armci since 2026-11-29: its
  # test_swap (a spin lock of swaps in rank 0's memory) hung here until ARMCI_Rmw to one's own memory ran
  # MPI's progress engine (transfer/mpi_rmw.cc).  Left out: the slow stress lines, and mn-sync-shm0 (31 s here; the
  # same MPI calls as mn-sync, without our node path, which MPICH's 2x2 stage runs).
  # ARMCIX_SKIP_OPENMPI_HOSTS=1 leaves it out (.ci/run: Debian 13's Open MPI 5 runs it).
  if [ -n "$ompi" ] && [ "${ARMCIX_SKIP_MULTINODE:-0}" != 1 ] && [ "${ARMCIX_SKIP_OPENMPI_HOSTS:-0}" != 1 ]; then
    echo "== Open MPI across nodes: 2 simulated hosts x 2 ranks"
    (cd "$ompi" && "$repo/tests/check.sh" --manifest "$repo/tests/multinode/lines.txt" --hosts 2x2 \
      --filter '^mn-(model|accv|core|strided|nb|sync|msg|groups|shm|shm-small-pool|classic-armci|classic-mutex|ga-core|ga-core-window-each|gasuite-mirror)\.') | tee openmpi-2x2.out
    tally openmpi-2x2.out
  fi
  # Open MPI under Slurm: srun --mpi=pmix (Slurm's pmix_v4 plugin against Debian's PMIx 4.2, which Open
  # MPI 4.1 uses too; on Debian 13 pmix_v5 and Open MPI 5.0.7) runs the GA demo and the Topology tests at
  # 2 hosts x 2 ranks (pml and osc ucx over TCP, as above), and mpirun inside salloc the GA demo.  The classic ARMCI test (ompi-classic-armci) takes 1-1.5
  # minutes there, as across simulated hosts without Slurm: by hand.  Skipped without root or Slurm;
  # ARMCIX_SKIP_SLURM=1 leaves it out.
  if [ -n "$ompi" ] && [ "${ARMCIX_SKIP_MULTINODE:-0}" != 1 ] && [ "${ARMCIX_SKIP_SLURM:-0}" != 1 ]; then
    echo "== Open MPI under Slurm: 2 simulated hosts x 2 ranks (srun --mpi=pmix)"
    ARMCIX_OMPI_BUILDDIR="$ompi" "$repo/tests/multinode/slurm.sh" ompi-ga-demo ompi-topology ompi-mpirun-ga-demo | tee openmpi-slurm.out
    tally openmpi-slurm.out
  fi
  echo "== Open MPI stage took $(( $(date +%s) - ompi_start )) s"
fi
echo "== finished in $(( $(date +%s) - start )) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
