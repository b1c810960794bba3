#!/usr/bin/env bash
# One machine given to MPICH's Hydra under two names (-hosts localhost:2,127.0.0.1:2): Hydra starts a proxy
# per name, and MPI calls them two nodes, while every process has the same boot id, host name and network
# namespace -- one node key for all four (topo/node_keys.h).  The launcher's count (MPI_LOCALNRANKS=2)
# is below the key's (4), so ARMCI_Init must ask MPI for its nodes: test_core's Topology tests compare the
# library's nodes with MPI_COMM_TYPE_SHARED's, and the verbose banner must say where they came from.  With
# ARMCI_NODES_FROM_MPI=1 the same nodes by the other way in.  MPICH only (Open MPI's mpirun would ssh to the
# second name): exit 77 (skipped) elsewhere.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/mpi/test_core"
launcher="${MPIEXEC:-mpiexec.mpich}"
if "$launcher" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then
  echo "host_named_twice: SKIP (Hydra only; MPIEXEC is Open MPI's)"
  exit 77
fi
passed=0 failed=0
run_case() {  # description, wanted banner text, environment...
  local what="$1" want="$2"; shift 2
  local out rc
  out="$(env "$@" ARMCI_VERBOSE=1 timeout 120 "$launcher" -hosts localhost:2,127.0.0.1:2 -n 4 "$bin" \
         --gtest_filter='Topology.*' 2>&1)"; rc=$?
  if [ $rc -eq 0 ] && grep -qF -- "4 ranks on 2 node(s)" <<< "$out" && grep -qF -- "$want" <<< "$out"; then
    echo "PASS host named twice: $what"; passed=$((passed + 1))
  else
    echo "FAIL host named twice: $what (exit $rc)"; echo "$out" | grep -v '^\[ *\(RUN\|OK\) ' | tail -n 25 | sed 's/^/    | /'
    failed=$((failed + 1))
  fi
}
run_case "the launcher's count sends ARMCI_Init to MPI" "nodes from MPI_Comm_split_type (MPI or the launcher splits a host)"
run_case "ARMCI_NODES_FROM_MPI=1" "nodes from MPI_Comm_split_type (ARMCI_NODES_FROM_MPI=1)" ARMCI_NODES_FROM_MPI=1
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
