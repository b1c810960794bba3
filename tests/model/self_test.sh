#!/usr/bin/env bash
# The model tester's self-test: with ARMCIX_MODEL_INJECT=N the tester corrupts the Nth (from 0) checked get of rank 0
# before its check.  It must report the mismatch with its seed, shrink the program to the one get, and write
# a C reproducer that compiles against armci-x and runs (there the injected fault is absent: "not reproduced").
set -u
: "${top_builddir:?run from tests/check.sh}" "${MPIEXEC:?}" "${MPICC:?}"
tester="$top_builddir/tests/model/model_tester"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAILED: $1"; fail=$((fail + 1)); }
ARMCIX_MODEL_INJECT=0 timeout 200 $MPIEXEC -n 2 "$tester" --seed 5 --seeds 1 --repro-dir "$tmp" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -ne 0 ] && ok "the run fails (exit $rc)" || bad "the run passed although a get was corrupted"
grep -q '^MODEL MISMATCH seed 5 ' "$tmp/out" && ok "the mismatch names its seed" || bad "no MODEL MISMATCH line with the seed"
grep -q '^0 passed, 1 failed' "$tmp/out" && ok "closing line counts the seed" || bad "closing line"
n="$(sed -n 's/.*shrunk in [0-9]* runs to \([0-9]*\) operations.*/\1/p' "$tmp/out")"
[ -n "$n" ] && [ "$n" -le 2 ] && ok "shrunk to $n operations" || bad "not shrunk to at most 2 operations (got '${n:-none}')"
repro="$tmp/model-repro-5.c"
if [ -f "$repro" ]; then
  ok "reproducer written"
  if $MPICC -I"$top_srcdir/include" -I"$top_builddir/include" "$repro" -o "$tmp/repro" \
      "$top_builddir/src/.libs/libarmci.a" -lstdc++ -lpthread -lrt -lm >"$tmp/cc.out" 2>&1; then
    ok "reproducer compiles"
    timeout 120 $MPIEXEC -n 2 "$tmp/repro" >"$tmp/run.out" 2>&1
    rc=$?
    cat "$tmp/run.out"
    [ $rc -eq 0 ] && grep -q 'not reproduced' "$tmp/run.out" && ok "reproducer runs clean (the fault was the tester's)" ||
      bad "reproducer run (exit $rc)"
  else
    cat "$tmp/cc.out"; bad "reproducer does not compile"
  fi
else
  bad "no reproducer file"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
