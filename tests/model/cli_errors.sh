#!/usr/bin/env bash
# The model tester's command line: an unknown option, a missing value and a value that is not a whole number
# (or is out of range) each end the tester with exit status 2 and a message naming the option, before MPI
# starts (run directly: np 0 in tests/model/manifest.txt).  Closing line: "N passed, N failed".
set -u
: "${top_builddir:?run from tests/check.sh}"
tester="$top_builddir/tests/model/model_tester"
passed=0 failed=0
# expect MESSAGE ARGS...: the tester given ARGS exits 2 and says MESSAGE on standard error.
expect() {
  local want="$1"; shift
  local out rc
  out="$(timeout 30 "$tester" "$@" 2>&1 >/dev/null)"; rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$want" <<< "$out"; then
    echo "PASS  model_tester $* -> exit 2: $out"; passed=$((passed + 1))
  else
    echo "FAIL  model_tester $* -> exit $rc, wanted 2 and \"$want\"; said: $out"; failed=$((failed + 1))
  fi
}
expect "unknown argument --bogus" --bogus
expect "unknown argument 12" --seeds 4 12
expect "--seeds needs a value" --seeds
expect "--seeds 'ten' is not a whole number" --seeds ten
expect "--seeds '0' is not a whole number from 1" --seeds 0
expect "--ops '4x' is not a whole number" --ops 4x
expect "--threads '-1' is not a whole number from 1 to 256" --threads -1
expect "--phases '99999999999999999999' is not a whole number" --phases 99999999999999999999
expect "--max-bytes '100' is not a whole number from 256" --max-bytes 100
expect "--seed '' is not a whole number" --seed ""
expect "--time-budget 'soon' is not a number of seconds" --time-budget soon
expect "--hang-seconds '-5' is not a number of seconds" --hang-seconds -5
expect "--parallel-groups takes --threads 2" --parallel-groups --threads 3
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
