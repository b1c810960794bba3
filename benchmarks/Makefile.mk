# Benchmarks are built by benchmarks/compare.sh (twice: against armci-x and against ARMCI-MPI).
EXTRA_DIST += benchmarks
