#!/usr/bin/env bash
# The README's first command: installs what is needed, builds armci-x, runs a Global Arrays program
# (Debian's prebuilt GA, libga-mpich.a) on our library at 4 ranks, then a short benchmark against
# Debian's ARMCI-MPI 0.3.1 in the same run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
"$repo/tools/install-deps.sh"
echo "== building armci-x"
build="$("$repo/tools/build.sh" | tail -n 1)"
echo "== Global Arrays demo (examples/ga_demo.c) on armci-x, 4 ranks"
timeout 600 mpiexec.mpich -n "${ARMCIX_DEMO_NP:-4}" "$build/examples/ga_demo"
echo "== benchmark summary (armci-x vs ARMCI-MPI 0.3.1, 2 ranks; full tables: benchmarks/compare.sh)"
"$repo/benchmarks/compare.sh" --ours "$build/src/.libs/libarmci.a" --ours-include "$repo/include" \
  --quick contig sync ga_patch
