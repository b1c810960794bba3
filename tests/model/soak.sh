#!/usr/bin/env bash
# A long run of the model tester with fresh seeds (from the clock), every layout of tests/model/manifest.txt
# in turn, each for a slice of the time.  Run from the build directory:
#     ../tests/model/soak.sh MINUTES [RANKS]        (default 30 minutes, 2 ranks; MPIEXEC from tests/env.sh)
# Prints each layout's "model:" line (operations issued, values checked) and a closing "N passed, N failed"
# over the seeds; a mismatch prints its seed, shrunk program and reproducer (in ./model-soak).
set -u
minutes="${1:-30}" np="${2:-2}"
here="$(cd "$(dirname "$0")" && pwd)"
. ./tests/env.sh || { echo "soak.sh: run from a configured build directory" >&2; exit 2; }
layouts=("" "ARMCI_SHM=0" "ARMCI_NODE_SIZE=1" "MPIR_CVAR_NUM_CLIQUES=2" "UCX_TLS=tcp,self ARMCI_NODE_SIZE=1"
         "ARMCI_PROGRESS_THREAD=1 ARMCI_NODE_SIZE=1" "ARMCI_STRIDED_METHOD=DIRECT ARMCI_NODE_SIZE=1"
         "ARMCI_IOV_METHOD=BATCHED ARMCI_NODE_SIZE=1" "ARMCI_SHR_BUF_METHOD=COPY ARMCI_MAX_OUTSTANDING=1 ARMCI_NODE_SIZE=1")
slice=$(( minutes * 60 / ${#layouts[@]} ))
mkdir -p model-soak
pass=0 fail=0 seed=$(( $(date +%s) % 1000000 * 1000 ))
for env in "${layouts[@]}"; do
  out="$(env $env timeout $((slice + 300)) $MPIEXEC -n "$np" tests/model/model_tester --seed "$seed" --seeds 1000000 \
    --time-budget "$slice" --ops 48 --repro-dir model-soak --layout "${env:-one-node}" 2>&1)"
  echo "$out" | grep -E '^(MODEL|  shrunk|  reproducer|model:)'
  line="$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)"
  if [ -n "$line" ]; then pass=$((pass + ${line%% *})); f="${line#*, }"; fail=$((fail + ${f%% *})); else fail=$((fail + 1)); echo "no closing line for '$env'"; fi
  seed=$((seed + 100000))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
