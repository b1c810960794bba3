#!/usr/bin/env bash
# The README's first command: installs what is needed, builds armci-x, runs a Global Arrays program
# (Debian's prebuilt GA, libga-mpich.a) on our library at 4 ranks, then a short benchmark against
# Debian's ARMCI-MPI (libarmci-mpi-dev: 0.3.1 on Debian 12, 0.4 on Debian 13) in the same run.
# A failing step says why on standard error (tools/build.sh prints the compiler's or linker's errors).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
"$repo/tools/install-deps.sh" || { echo "main-job: installing the packages failed (see above)" >&2; exit 1; }
echo "== building armci-x"
build="$("$repo/tools/build.sh" | tail -n 1)" || { echo "main-job: the build failed (see above)" >&2; exit 1; }
echo "== Global Arrays demo (examples/ga_demo.c) on armci-x, 4 ranks"
timeout 600 mpiexec.mpich -n "${ARMCIX_DEMO_NP:-4}" "$build/examples/ga_demo"
armci_mpi="$(dpkg-query -W -f='${Version}' libarmci-mpi-dev 2>/dev/null)" || armci_mpi=""
echo "== benchmark summary (armci-x vs Debian's ARMCI-MPI ${armci_mpi%-*}, 2 ranks; full tables: benchmarks/compare.sh)"
"$repo/benchmarks/compare.sh" --ours "$build/src/.libs/libarmci.a" --ours-include "$repo/include" \
  --quick contig sync ga_patch
