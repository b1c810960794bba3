#!/usr/bin/env bash
# armci-x under a real Slurm (issue 52): tools/slurm-hosts.sh brings up slurmctld and one slurmd per
# simulated host (2 hosts), and this script runs, through srun and sbatch:
#   srun-ga-demo          examples/ga_demo, 2 hosts x 2 ranks (srun --mpi=pmi2 on MPICH), with the banner's
#                         node count checked (ARMCI_VERBOSE=1: "4 ranks on 2 node(s)", census keys)
#   srun-topology         test_core's Topology tests, with the simulated-hosts check (ARMCIX_TEST_HOSTS=2)
#   srun-ga-core, srun-ga-patches, srun-classic-armci   two GA test programs and the classic ARMCI test
#   sbatch-ga-demo        a batch script (sbatch --wait) whose srun runs the GA demo; its output file checked
#   srun-progress-ranks   ARMCI_PROGRESS_RANKS=1 with --ntasks-per-node=3: 2 program ranks + 1 progress
#                         rank per host (test_progress_ranks, then the GA core test)
#   srun-kill             fault_peer: the last rank is killed with SIGKILL while the others get from it;
#                         srun -K (--kill-on-bad-exit=1) must end the job, non-zero, within KILL_BOUND s
#   ompi-*                with an Open MPI build (ARMCIX_OMPI_BUILDDIR, default ../build-openmpi next to
#                         the build directory, if it has the programs): ga_demo (banner checked as above),
#                         the Topology tests and the classic ARMCI test through srun --mpi=pmix, and
#                         ga_demo through Open MPI's own mpirun inside an allocation (salloc; mpirun starts
#                         its daemons with srun); skipped otherwise
# Usage: tests/multinode/slurm.sh [case ...]      (run from the build directory, or set ARMCIX_BUILDDIR)
# Not root, or Slurm/munge not installed: every case is skipped (exit 77).  Closing line: "N passed, N failed".
set -u
here="$(cd "$(dirname "$0")" && pwd)"
top="$(cd "$here/../.." && pwd)"
builddir="$(cd "${ARMCIX_BUILDDIR:-$(pwd)}" && pwd)"
ompi_dir="${ARMCIX_OMPI_BUILDDIR:-$builddir/../build-openmpi}"
all=(srun-ga-demo srun-topology srun-ga-core srun-ga-patches srun-classic-armci sbatch-ga-demo
     srun-progress-ranks srun-kill ompi-ga-demo ompi-topology ompi-classic-armci ompi-mpirun-ga-demo)
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=("${all[@]}")

if [ -z "${SLURM_HOSTS_DIR:-}" ]; then
  # Outside the cluster: start it and run this script again inside it.
  skip() { echo "slurm.sh: SKIP: $1"; echo "0 passed, 0 failed, ${#cases[@]} skipped"; exit 77; }
  [ "$(id -u)" = 0 ] || skip "needs root (network namespaces, the Slurm daemons)"
  command -v srun >/dev/null 2>&1 && [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/munged ] ||
    skip "Slurm or munge is not installed (tools/install-deps.sh installs slurm-wlm and munge)"
  [ -x "$builddir/examples/ga_demo" ] || { echo "slurm.sh: $builddir/examples/ga_demo not built (run from the build directory)" >&2; exit 2; }
  ARMCIX_BUILDDIR="$builddir" ARMCIX_OMPI_BUILDDIR="$ompi_dir" \
    "$top/tools/slurm-hosts.sh" --hosts 2 --timeout "${SLURM_SH_TIMEOUT:-480}" --keep-logs "$builddir/tests/logs/slurm-daemons" \
    "$0" "${cases[@]}"
  rc=$?
  [ $rc -eq 124 ] && echo "FAIL  slurm cluster timed out (tools/slurm-hosts.sh --timeout)" && echo "0 passed, 1 failed"
  [ $rc -eq 2 ] && ! [ -f "$builddir/tests/logs/slurm-summary" ] && echo "FAIL  slurm cluster set-up" && echo "0 passed, 1 failed"
  rm -f "$builddir/tests/logs/slurm-summary"
  exit $rc
fi

# Inside the cluster (SLURM_CONF set by slurm-hosts.sh).
cd "$builddir" || exit 2
logdir="$builddir/tests/logs"
mkdir -p "$logdir"
KILL_BOUND=30
passed=0 failed=0 skipped=0
pass() { printf 'PASS  slurm %-22s %s\n' "$1" "$2"; passed=$((passed + 1)); }
fail() {
  printf 'FAIL  slurm %-22s %s\n' "$1" "$2"; failed=$((failed + 1))
  [ -f "$logdir/slurm-$1.log" ] && tail -n 20 "$logdir/slurm-$1.log" | sed 's/^/    | /'
}
skip_case() { printf 'SKIP  slurm %-22s %s\n' "$1" "$2"; skipped=$((skipped + 1)); }
# One srun step: 2 nodes, PER ranks each, ending the job when a task fails (-K), bounded.
run_srun() {  # NAME MPI PER PROGRAM ARGS...  (environment through env, before the program)
  local name="$1" mpi="$2" per="$3"; shift 3
  timeout --kill-after=10 180 srun -N 2 --ntasks-per-node="$per" --mpi="$mpi" -K "$@" > "$logdir/slurm-$name.log" 2>&1
}
# Every rank reported a gtest verdict line "all ranks passed" or the program its own success line.
check_gtest() { grep -q '^\[verdict\] all ranks passed' "$logdir/slurm-$1.log"; }
elapsed() { echo "$(( ($(date +%s%N) - $1) / 1000000 )) ms"; }

# Open MPI over srun: pml and osc ucx over TCP, as tools/simhosts.sh runs Open MPI across hosts (Debian's
# Open MPI has no other one-sided component that reaches another host over TCP).
# shellcheck disable=SC2054 # the commas are inside values
ompi_env=(OMPI_MCA_pml=ucx "OMPI_MCA_osc=^pt2pt" OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any
          UCX_TLS=tcp,self OMPI_MCA_mpi_yield_when_idle=1)

for c in "${cases[@]}"; do
  t0=$(date +%s%N)
  case "$c" in
    srun-ga-demo)
      run_srun "$c" pmi2 2 env ARMCI_VERBOSE=1 examples/ga_demo; rc=$?
      log="$logdir/slurm-$c.log"
      if [ $rc -ne 0 ] || ! grep -q 'ALL CHECKS PASSED' "$log"; then fail "$c" "(exit $rc)"
      elif ! grep -q '4 ranks on 2 node(s)' "$log" || ! grep -q 'nodes from the census' "$log"; then
        fail "$c" "(the banner does not report 4 ranks on 2 nodes from the census)"
      else pass "$c" "($(elapsed "$t0"))"; fi ;;
    srun-topology)
      run_srun "$c" pmi2 2 env ARMCIX_TEST_HOSTS=2 tests/mpi/test_core --gtest_filter='Topology*'; rc=$?
      if [ $rc -eq 0 ] && check_gtest "$c" && ! grep -q 'SKIPPED.*NodesAreTheSimulatedHosts' "$logdir/slurm-$c.log"; then
        pass "$c" "($(elapsed "$t0"))"; else fail "$c" "(exit $rc)"; fi ;;
    srun-ga-core|srun-ga-patches)
      prog="tests/ga/ga_${c#srun-ga-}"
      if ! [ -x "$prog" ]; then skip_case "$c" "($prog not built)"; continue; fi
      run_srun "$c" pmi2 2 "$prog"; rc=$?
      if [ $rc -eq 0 ]; then pass "$c" "($(elapsed "$t0"))"; else fail "$c" "(exit $rc)"; fi ;;
    srun-classic-armci)
      run_srun "$c" pmi2 2 tests/classic/armci_test; rc=$?
      if [ $rc -eq 0 ]; then pass "$c" "($(elapsed "$t0"))"; else fail "$c" "(exit $rc)"; fi ;;
    sbatch-ga-demo)
      out="$SLURM_HOSTS_DIR/sbatch-ga-demo.out"
      cat > "$SLURM_HOSTS_DIR/ga-demo.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=ga-demo
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --time=5
#SBATCH --output=$out
srun --mpi=pmi2 --kill-on-bad-exit=1 $builddir/examples/ga_demo
EOF
      timeout --kill-after=10 180 sbatch --wait "$SLURM_HOSTS_DIR/ga-demo.sbatch" > "$logdir/slurm-$c.log" 2>&1; rc=$?
      cat "$out" >> "$logdir/slurm-$c.log" 2>/dev/null
      if [ $rc -eq 0 ] && grep -q 'ALL CHECKS PASSED' "$out" 2>/dev/null && grep -q '^ga_demo: 4 ranks' "$out"; then
        pass "$c" "($(elapsed "$t0"))"; else fail "$c" "(sbatch exit $rc)"; fi ;;
    srun-progress-ranks)
      # 3 tasks per node: 2 program ranks and (the last of each node) 1 progress rank.
      run_srun "$c" pmi2 3 env ARMCI_PROGRESS_RANKS=1 ARMCI_VERBOSE=1 tests/mpi/test_progress_ranks; rc=$?
      ok=0
      if [ $rc -eq 0 ] && check_gtest "$c" && grep -q '4 ranks on 2 node(s)' "$logdir/slurm-$c.log"; then ok=1; fi
      if [ $ok = 1 ] && [ -x tests/ga/ga_core ]; then
        cp "$logdir/slurm-$c.log" "$logdir/slurm-$c-1.log"
        run_srun "$c" pmi2 3 env ARMCI_PROGRESS_RANKS=1 tests/ga/ga_core; rc=$?
        [ $rc -eq 0 ] || ok=0
      fi
      if [ $ok = 1 ]; then pass "$c" "($(elapsed "$t0"))"; else fail "$c" "(exit $rc)"; fi ;;
    srun-kill)
      log="$logdir/slurm-$c.log"
      timeout --kill-after=10 120 srun -N 2 --ntasks-per-node=2 --mpi=pmi2 -K tests/multinode/fault_peer get 100 > "$log" 2>&1 &
      job=$!
      victim=""
      for _ in $(seq 600); do
        victim="$(sed -n 's/^fault_peer: victim ready (rank [0-9]*, pid \([0-9]*\)).*/\1/p' "$log" | head -n 1)"
        [ -n "$victim" ] && break
        kill -0 "$job" 2>/dev/null || break
        sleep 0.1
      done
      if [ -z "$victim" ]; then wait "$job"; fail "$c" "(the job did not start: exit $?)"; continue; fi
      sleep 2
      k0=$(date +%s%N)
      kill -KILL "$victim"
      wait "$job"; rc=$?
      ms=$(( ($(date +%s%N) - k0) / 1000000 ))
      if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $ms -le $((KILL_BOUND * 1000)) ]; then
        pass "$c" "(srun ended the job ${ms} ms after the kill, exit $rc)"
      else fail "$c" "(exit $rc, ${ms} ms after the kill; bound ${KILL_BOUND} s)"; fi ;;
    ompi-ga-demo|ompi-topology|ompi-classic-armci|ompi-mpirun-ga-demo)
      case "$c" in
        ompi-topology) prog=tests/mpi/test_core ;;
        ompi-classic-armci) prog=tests/classic/armci_test ;;
        *) prog=examples/ga_demo ;;
      esac
      if ! [ -x "$ompi_dir/$prog" ]; then skip_case "$c" "(no Open MPI build with $prog: ARMCIX_OMPI_BUILDDIR)"; continue; fi
      log="$logdir/slurm-$c.log"
      case "$c" in
        ompi-topology)
          run_srun "$c" pmix 2 env "${ompi_env[@]}" ARMCIX_TEST_HOSTS=2 "$ompi_dir/$prog" --gtest_filter='Topology*'; rc=$?
          ok() { check_gtest "$c" && ! grep -q 'SKIPPED.*NodesAreTheSimulatedHosts' "$log"; } ;;
        ompi-mpirun-ga-demo)
          # mpirun runs in the allocation's shell (the root namespace here): its daemons' connections back
          # to it arrive over the bridge, so that is the interface it must use besides the nodes' eth0.
          fwd=(); for v in "${ompi_env[@]}"; do fwd+=(-x "$v"); done
          timeout --kill-after=10 180 salloc -N 2 --ntasks-per-node=2 mpiexec.openmpi --allow-run-as-root \
            --mca oob_tcp_if_include "eth0,$SLURM_HOSTS_BRIDGE" --mca btl_tcp_if_include eth0 "${fwd[@]}" \
            -x ARMCI_VERBOSE=1 "$ompi_dir/$prog" > "$log" 2>&1; rc=$?
          ok() { grep -q 'ALL CHECKS PASSED' "$log" && grep -q '4 ranks on 2 node(s)' "$log"; } ;;
        ompi-ga-demo)
          run_srun "$c" pmix 2 env "${ompi_env[@]}" ARMCI_VERBOSE=1 "$ompi_dir/$prog"; rc=$?
          ok() { grep -q 'ALL CHECKS PASSED' "$log" && grep -q '4 ranks on 2 node(s)' "$log"; } ;;
        *)
          run_srun "$c" pmix 2 env "${ompi_env[@]}" "$ompi_dir/$prog"; rc=$?
          ok() { true; } ;;
      esac
      if [ $rc -eq 0 ] && ok; then pass "$c" "($(elapsed "$t0"))"; else fail "$c" "(exit $rc)"; fi ;;
    *) echo "slurm.sh: unknown case $c" >&2; exit 2 ;;
  esac
done
touch "$logdir/slurm-summary"
if [ $skipped -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
[ $failed -eq 0 ]
