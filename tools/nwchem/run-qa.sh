#!/bin/bash
# Run a few of NWChem's own QA tests on a build made by tools/nwchem/build-release.sh, through NWChem's
# QA/runtests.mpi.unix: it runs the input under MPI and compares the output with the verified output
# in QA/tests/<name>/ by QA/nwparse.pl (energies, gradients, ... rounded as NWChem's QA rounds them).
#
# usage: tools/nwchem/run-qa.sh [--armci armcix|armci-mpi|mpi-pr|mpi-ts] [--ranks N] [--timeout SECONDS] [TEST...]
#
#   --armci    which build (default armcix): $NWX_DIR/build-<armci>/nwchem-7.2.3; mpi-pr and mpi-ts are
#              GA's own ports (ARMCI_NETWORK=MPI-PR / MPI-TS, no external ARMCI)
#   --ranks    MPI processes (default 2), MPICH's mpiexec.mpich on this node.  With mpi-pr one of them
#              is GA's progress rank: --ranks 3 computes on 2, like the others at --ranks 2
#   --timeout  per test (default 900 s); a test that runs out is killed and FAILs
#   TEST       QA/tests names (default: the list below: SCF, DFT, MP2, CCSD(T), properties,
#              optimisation and frequencies: what the module set of build-release.sh covers)
#
# Prints per test "PASS|FAIL name seconds" and at the end "N passed, N failed"; exit status 0 only
# if every test passed.  Per-test logs (runtests output, NWChem output, nwparse files) go to
# $NWX_DIR/qa-<armci>-np<N>/.  Every run is under "nice -n 19 ionice -c3" ($NWX_NICE).
#
# Environment: NWX_DIR (default /var/tmp/nwx), NWX_NICE.  For --armci armci-mpi the runs get
# ARMCI_USE_WIN_ALLOCATE=0 ARMCI_STRIDED_METHOD=IOV ARMCI_IOV_METHOD=BATCHED unless they are set:
# with ARMCI-MPI's defaults (MPI datatypes for strided transfers) NWChem's SCF goes wrong from the
# first iteration on Debian 12's MPICH 4.0.2 (h2o: -58.03 instead of -75.97 Hartree; seen
# 2026-12-06, also with ARMCI_USE_WIN_ALLOCATE=0 ARMCI_USE_ALLOC_SHM=0 ARMCI_DISABLE_SHM_ACC=1),
# and right at 1 rank or with these settings.  (MPICH 4.0.1-4.0.2 also has the shared-memory
# atomics bug of MPICH issue 6110 / NWChem issue 633 that ARMCI_USE_WIN_ALLOCATE=0 avoids.)

set -euo pipefail

armci=armcix
ranks=2
tmo=900
tests=()
while [ $# -gt 0 ]; do
    case "$1" in
        --armci) armci=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --timeout) tmo=$2; shift 2 ;;
        -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
        -*) echo "run-qa.sh: unknown option $1" >&2; exit 1 ;;
        *) tests+=("$1"); shift ;;
    esac
done
case "$armci" in armcix | armci-mpi | mpi-pr | mpi-ts) ;;
    *) echo "run-qa.sh: --armci armcix|armci-mpi|mpi-pr|mpi-ts" >&2; exit 1 ;; esac
[ ${#tests[@]} -gt 0 ] || tests=(h2o h2o_dk small_intchk h2o_opt c2h4 dft_he2+ prop_h2o h2mp2 mp2_scs_n2
    ccsdt_w3pvdz n2_ccsd hess_h2o)

NWX_DIR=${NWX_DIR:-/var/tmp/nwx}
read -r -a NICE <<<"${NWX_NICE:-nice -n 19 ionice -c3}"
export NWCHEM_TOP=$NWX_DIR/build-$armci/nwchem-7.2.3
export NWCHEM_TARGET=LINUX64
export NWCHEM_EXECUTABLE=$NWCHEM_TOP/bin/LINUX64/nwchem
export NWCHEM_BASIS_LIBRARY=$NWCHEM_TOP/src/basis/libraries/
[ -x "$NWCHEM_EXECUTABLE" ] || { echo "run-qa.sh: no $NWCHEM_EXECUTABLE (run build-release.sh --armci $armci)" >&2; exit 1; }
prefix=$NWX_DIR/$armci-prefix
case "$armci" in mpi-pr | mpi-ts) prefix="" ;; esac  # GA's own ARMCI is inside the binary
[ -z "$prefix" ] || export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ "$armci" = armci-mpi ]; then
    export ARMCI_USE_WIN_ALLOCATE=${ARMCI_USE_WIN_ALLOCATE:-0}
    export ARMCI_STRIDED_METHOD=${ARMCI_STRIDED_METHOD:-IOV} ARMCI_IOV_METHOD=${ARMCI_IOV_METHOD:-BATCHED}
fi
# The binary must take its libarmci from $prefix (when the link took the shared library).
got=$(ldd "$NWCHEM_EXECUTABLE" | awk '/libarmci/ { print $3 }')
if [ -n "$got" ] && { [ -z "$prefix" ] || [ "$(readlink -f "$got")" != "$(readlink -f "$prefix/lib/libarmci.so")" ]; }; then
    echo "run-qa.sh: $NWCHEM_EXECUTABLE resolves libarmci to $got, not ${prefix:-the static libarmci.a of GA}" >&2; exit 1
fi

out=$NWX_DIR/qa-$armci-np$ranks
mkdir -p "$out"
# runtests.mpi.unix runs "$MPIRUN_PATH -np N nwchem input": a launcher with the timeout in it.
launcher=$out/mpiexec-timeout
cat >"$launcher" <<EOF
#!/bin/sh
exec timeout -k 20 $tmo /usr/bin/mpiexec.mpich "\$@"
EOF
chmod +x "$launcher"
export MPIRUN_PATH=$launcher

computing=$ranks
[ "$armci" = mpi-pr ] && computing=$((ranks - 1))  # one progress rank on this one node
echo "# NWChem QA on $armci: $NWCHEM_EXECUTABLE, $ranks ranks ($computing computing), timeout ${tmo}s, $(date -u '+%F %T') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
pass=0
fail=0
for t in "${tests[@]}"; do
    log=$out/$t.log
    s=$(date +%s.%N)
    rc=0
    (cd "$NWCHEM_TOP/QA" && "${NICE[@]}" ./runtests.mpi.unix procs "$ranks" "$t") >"$log" 2>&1 || rc=$?
    e=$(date +%s.%N)
    secs=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.1f", b - a }')
    for f in "$t.out" "$t.err" "$t.out.nwparse" "$t.ok.out.nwparse"; do
        [ -f "$NWCHEM_TOP/QA/testoutputs/$f" ] && cp "$NWCHEM_TOP/QA/testoutputs/$f" "$out/"
    done
    # runtests prints "verifying output ... " then the run's stderr (ARMCI-MPI writes a warning
    # there), then "OK" or "failed".
    if [ "$rc" = 0 ] && grep -q 'verifying output' "$log" && grep -q -E '(^|\.\.\. )OK$' "$log" &&
        ! grep -q -E 'verifying output.*failed|^failed$' "$log"; then
        echo "PASS $t $secs"
        pass=$((pass + 1))
    else
        why=$(grep -m1 -o -E 'NWChem execution failed|verifying output \.\.\. failed|failed: .*|nga_wait warnings|nwparse.pl failed.*' "$log" || true)
        grep -q 'verifying output' "$log" || [ "$(awk -v x="$secs" -v t="$tmo" 'BEGIN { print (x >= t) }')" = 0 ] ||
            why="timeout ${tmo}s"
        echo "FAIL $t $secs (${why:-rc $rc}; $log)"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
