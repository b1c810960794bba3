# Runs across MPI nodes (tests/multinode/lines.txt with tests/check.sh --hosts / --cliques) and the fault
# tests (tests/multinode/faults.sh: a peer killed or cut off on another simulated host).
EXTRA_DIST += tests/multinode/lines.txt tests/multinode/faults.sh tests/multinode/host_named_twice.sh \
  tests/multinode/mpich_node_maps.sh tests/multinode/slurm.sh
check_PROGRAMS += tests/multinode/fault_peer
tests_multinode_fault_peer_SOURCES = tests/multinode/fault_peer.c
tests_multinode_fault_peer_LDADD = $(TEST_LIB)
tests_multinode_fault_peer_LINK = $(CXXLINK)
