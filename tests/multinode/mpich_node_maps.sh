#!/usr/bin/env bash
# MPICH's debugging node maps (MPIR_CVAR_NUM_CLIQUES, ODD_EVEN_CLIQUES, CLIQUES_BY_BLOCK, NOLOCAL) on one
# machine: ARMCI_Init reads the values through MPI_T and applies MPICH's rule to the census's node keys
# instead of asking MPI_Comm_split_type over the whole job (topo/node_keys.h).  Each case runs test_core's
# Topology tests, which compare the library's nodes with MPI_COMM_TYPE_SHARED's (NodesAreMpisNodes), and
# checks the verbose banner for the node count MPICH's rule gives and for the way the nodes were found --
# so that a case falling back to MPI (correct, but the slow start-up again) fails here too.  MPICH only
# (Open MPI ignores these variables): exit 77 (skipped) elsewhere.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/mpi/test_core"
launcher="${MPIEXEC:-mpiexec.mpich}"
if "$launcher" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then
  echo "mpich_node_maps: SKIP (MPICH only; MPIEXEC is Open MPI's)"
  exit 77
fi
cliques="nodes from the census's node keys and MPICH's cliques (MPIR_CVAR_*_CLIQUES, read through MPI_T)"
passed=0 failed=0
run_case() {  # description, ranks, wanted node count, wanted "nodes from" text, launcher options, --, environment...
  local what="$1" np="$2" nodes="$3" want="$4" opts="$5"; shift 5
  local out rc
  # The runner's own clique settings must not leak into a case (tests/check.sh --cliques sets some).
  # shellcheck disable=SC2086
  out="$(env -u MPIR_CVAR_NUM_CLIQUES -u MPIR_CVAR_ODD_EVEN_CLIQUES -u MPIR_CVAR_CLIQUES_BY_BLOCK \
         -u MPIR_CVAR_NOLOCAL -u MPICH_NUM_CLIQUES -u MPICH_ODD_EVEN_CLIQUES "$@" ARMCI_VERBOSE=1 \
         timeout 120 "$launcher" $opts -n "$np" "$bin" --gtest_filter='Topology.*' 2>&1)"; rc=$?
  if [ $rc -eq 0 ] && grep -qF -- "$np ranks on $nodes node(s)" <<< "$out" && grep -qF -- "$want" <<< "$out"; then
    echo "PASS node map: $what"; passed=$((passed + 1))
  else
    echo "FAIL node map: $what (exit $rc; want \"$np ranks on $nodes node(s)\" and \"$want\")"
    echo "$out" | grep -v '^\[ *\(RUN\|OK\) ' | tail -n 25 | sed 's/^/    | /'
    failed=$((failed + 1))
  fi
}
run_case "2 round-robin cliques" 4 2 "$cliques" "" MPIR_CVAR_NUM_CLIQUES=2
run_case "odd-even cliques (MPICH_ prefix)" 4 2 "$cliques" "" MPICH_ODD_EVEN_CLIQUES=1
run_case "3 cliques at 5 ranks (round-robin: 2, 2, 1)" 5 3 "$cliques" "" MPIR_CVAR_NUM_CLIQUES=3
run_case "3 cliques by block at 4 ranks (2, 1, 1)" 4 3 "$cliques" "" MPIR_CVAR_NUM_CLIQUES=3 MPIR_CVAR_CLIQUES_BY_BLOCK=1
run_case "8 cliques at 4 ranks (capped: one rank each)" 4 4 "$cliques" "" MPIR_PARAM_NUM_CLIQUES=8
run_case "no-local (every rank a node)" 3 3 "nodes from the census (MPICH's MPIR_CVAR_NOLOCAL, read through MPI_T)" "" \
  MPIR_CVAR_NOLOCAL=1
# The environment names a split, but MPICH reads its MPIR_CVAR_ spelling first: MPI_T says 1 clique.
run_case "MPICH_NUM_CLIQUES=2 under MPIR_CVAR_NUM_CLIQUES=1" 4 1 "nodes from the census's node keys" "" \
  MPICH_NUM_CLIQUES=2 MPIR_CVAR_NUM_CLIQUES=1
# Two launcher nodes: MPICH applies no cliques, the launcher's count is below the key's, so MPI decides.
run_case "cliques on a host named twice" 4 2 "nodes from MPI_Comm_split_type (MPI or the launcher splits a host)" \
  "-hosts localhost:2,127.0.0.1:2" MPIR_CVAR_NUM_CLIQUES=2
run_case "cliques with ARMCI_NODES_FROM_MPI=1" 4 2 "nodes from MPI_Comm_split_type (ARMCI_NODES_FROM_MPI=1)" "" \
  MPIR_CVAR_NUM_CLIQUES=2 ARMCI_NODES_FROM_MPI=1
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
