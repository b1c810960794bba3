#!/usr/bin/env bash
# Profiler output check.  Runs tests/profile/profile_ops on 2 ranks with ARMCI_PROFILE=1 and
# ARMCI_PROFILE_FILE, and compares the machine-readable file (format: doc/user-guide.md) record by record
# with the calls the program makes: every op and hist record per rank and for "all", nothing more; one
# wall record per rank; call records (MPI calls and waits) well-formed, with the barriers' waits; path
# records (paths taken) adding up to the calls, node-local and with ARMCI_SHM=0; the human report on stdout.  Then: no file and no report without ARMCI_PROFILE, an unwritable file (or one whose
# writes fail) is reported without failing the job, and a program that overrides ARMCI_Put and calls
# PARMCI_Put (tests/parmci) is still profiled.
# Run by tests/check.sh (manifest np = 0: this script starts the MPI jobs itself with $MPIEXEC).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
builddir="${ARMCIX_BUILDDIR:-$here/../..}"
mpiexec="${MPIEXEC:-mpiexec.mpich}"
np=2
tmp="$(mktemp -d "${TMPDIR:-/tmp}/armcix-profile.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); [ $# -gt 1 ] && printf '%s\n' "$2" | head -n 40 | sed 's/^/    | /'; }
run() {  # output-file, program, env assignments...
  local out="$1" prog="$2"; shift 2
  env "$@" timeout 120 $mpiexec -n "$np" "$prog" > "$out" 2>&1
}

# The calls of profile_ops.c on rank r: "op <r> <kind> <calls> <bytes>" and "hist <r> <kind> <lo> <hi> <calls>".
expected_rank() {
  local r=$1 pv=$(( $1 + 1 ))
  printf 'op\t%s\t%s\t%s\t%s\n' \
    "$r" Malloc 1 8192  "$r" Free 1 0  "$r" Barrier 2 0  "$r" Fence 1 0 \
    "$r" Put 7 700  "$r" Get 3 12288  "$r" AccS 2 2048  "$r" Rmw 5 20  "$r" PutValue "$pv" $(( 4 * pv )) \
    "$r" PutV 1 32
  printf 'hist\t%s\t%s\t%s\t%s\t%s\n' \
    "$r" Malloc 8192 16383 1  "$r" Free 0 0 1  "$r" Barrier 0 0 2  "$r" Fence 0 0 1 \
    "$r" Put 64 127 7  "$r" Get 4096 8191 3  "$r" AccS 1024 2047 2  "$r" Rmw 4 7 5  "$r" PutValue 4 7 "$pv" \
    "$r" PutV 32 63 1
}
expected_all() {  # the per-rank records summed, under the name "all"
  local r
  for ((r = 0; r < np; ++r)); do expected_rank "$r"; done | awk -F'\t' -v OFS='\t' '
    $1 == "op"   { k = "op" OFS "all" OFS $3; c[k] += $4; b[k] += $5 }
    $1 == "hist" { k = "hist" OFS "all" OFS $3 OFS $4 OFS $5; c[k] += $6 }
    END { for (k in c) print (k ~ /^op/) ? k OFS c[k] OFS b[k] : k OFS c[k] }'
}

# ---- 1. the profile file and report -------------------------------------------------------------------
prof="$tmp/profile.tsv"
run "$tmp/out" "$builddir/tests/profile/profile_ops" ARMCI_PROFILE=1 "ARMCI_PROFILE_FILE=$prof"
rc=$?
if [ $rc -eq 0 ]; then pass "profile_ops ran (exit 0)"; else fail "profile_ops exit $rc" "$(cat "$tmp/out")"; fi
if [ -s "$prof" ]; then
  pass "ARMCI_PROFILE_FILE written"
else
  fail "ARMCI_PROFILE_FILE not written" "$(cat "$tmp/out")"
  : > "$prof"
fi

# Every line is a comment or one of the three record kinds with the right number of fields.
malformed="$(awk -F'\t' '/^#/ { next }
  $1 == "op" && NF == 6 && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/ && $6 ~ /^[0-9]+(\.[0-9]+)?$/ { next }
  $1 == "hist" && NF == 6 && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/ && $6 ~ /^[0-9]+$/ { next }
  $1 == "wall" && NF == 3 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+(\.[0-9]+)?$/ { next }
  $1 == "call" && NF == 7 && ($2 ~ /^[0-9]+$/ || $2 == "all") && ($3 == "mpi" || $3 == "wait") && $5 ~ /^[0-9]+$/ &&
    $6 ~ /^[0-9]+$/ && $7 ~ /^[0-9]+(\.[0-9]+)?$/ { next }
  $1 == "mem" && NF == 8 && $2 ~ /^[0-9]+$/ && $3$4$5$6$7$8 ~ /^[0-9]+$/ { next }
  $1 == "path" && NF == 5 && ($2 ~ /^[0-9]+$/ || $2 == "all") && $3 ~ /^(contig|strided|iov)$/ && $4 != "" &&
    $5 ~ /^[1-9][0-9]*$/ { next }
  { print NR ": " $0 }' "$prof")"
if [ -z "$malformed" ]; then pass "every record is well-formed"; else fail "malformed records" "$malformed"; fi

# op records without their seconds field, and hist records, against the expected set, exactly.
{ for ((r = 0; r < np; ++r)); do expected_rank "$r"; done; expected_all; } | sort > "$tmp/want"
awk -F'\t' -v OFS='\t' '$1 == "op" { print $1, $2, $3, $4, $5 } $1 == "hist" { print }' "$prof" | sort > "$tmp/got"
if diff -u "$tmp/want" "$tmp/got" > "$tmp/diff"; then
  pass "op and hist records per rank and for all match the calls made ($(wc -l < "$tmp/want") records)"
else
  fail "op/hist records differ from the calls made (- expected, + file)" "$(cat "$tmp/diff")"
fi

# The 100-byte puts are in the bin 64..127 (spelled out, independently of the tables above).
if grep -qP '^hist\t0\tPut\t64\t127\t7$' "$prof"; then pass "hist: 7 puts of 100 bytes in bin 64..127"
else fail "hist: no 'hist 0 Put 64 127 7' record" "$(grep -P '\tPut\t' "$prof")"; fi

# Every op's histogram adds up to its call count.
sums="$(awk -F'\t' '$1 == "op" { c[$2 " " $3] = $4 } $1 == "hist" { h[$2 " " $3] += $6 }
  END { for (k in c) if (c[k] != h[k]) print k ": op says " c[k] " calls, hist sums to " h[k] + 0 }' "$prof")"
if [ -z "$sums" ]; then pass "histograms sum to the call counts"; else fail "histogram sums" "$sums"; fi

# One wall record per rank, positive.
walls="$(awk -F'\t' '$1 == "wall" && $3 > 0 { print $2 }' "$prof" | sort -n | tr '\n' ' ')"
want_walls="$(seq 0 $((np - 1)) | tr '\n' ' ')"
if [ "$walls" = "$want_walls" ] && [ "$(grep -c '^wall' "$prof")" -eq "$np" ]; then pass "wall records for ranks $walls"
else fail "wall records: got ranks '$walls', want '$want_walls'" "$(grep '^wall' "$prof")"; fi

# Waits and MPI calls (call records): the two ARMCI_Barrier calls of every rank wait for the others once
# each (the collective check's agreement), and "all" sums the ranks.
barrier_waits="$(awk -F'\t' '$1 == "call" && $3 == "wait" && $4 == "ARMCI_Barrier" { print $2 "=" $5 }' "$prof" | sort |
  tr '\n' ' ')"
want_waits="$(for ((r = 0; r < np; ++r)); do echo "$r=2"; done; echo "all=$((2 * np))")"
want_waits="$(echo "$want_waits" | sort | tr '\n' ' ')"
if [ "$barrier_waits" = "$want_waits" ]; then pass "call records: ARMCI_Barrier waits $barrier_waits"
else fail "call records: ARMCI_Barrier waits '$barrier_waits', want '$want_waits'" "$(grep '^call' "$prof")"; fi

# Region memory (mem records): the one ARMCI_Malloc of 8192 B per rank is a pool block of 8192 B plus its
# 64-B lock-word header, in the pool's first segment (a 512-KiB slice per rank); no region of its own.
mem="$(awk -F'\t' '$1 == "mem" { print $2, $3, $4, $5, $6, $7, $8 }' "$prof" | sort | tr '\n' ';')"
want_mem="$(for ((r = 0; r < np; ++r)); do echo "$r 8256 524288 1 1 0 0"; done | tr '\n' ';')"
if [ "$mem" = "$want_mem" ]; then pass "mem records: one pool block of 8256 B in one 512-KiB segment per rank"
else fail "mem records: got '$mem', want '$want_mem'" "$(grep '^mem' "$prof")"; fi

# The human report on stdout.
report_ok=1
for want in "==== armci-x profile (ARMCI_PROFILE=1), $np ranks ====" "rank 0: " "rank 1: " "all ranks: " \
  "MPI calls through armci-x's wrappers and armci-x's waits"; do
  grep -qF -- "$want" "$tmp/out" || { report_ok=0; echo "    missing: $want"; }
done
grep -qE '^  Put +7 +700 ' "$tmp/out" || { report_ok=0; echo "    missing: the Put row of rank 0 (7 calls, 700 bytes)"; }
grep -qE '^  Put +14 +1400 ' "$tmp/out" || { report_ok=0; echo "    missing: the Put row of all ranks (14 calls, 1400 bytes)"; }
grep -qE '^  1 +8256 +524288 +63.50 +1 +1 +0 +0$' "$tmp/out" ||
  { report_ok=0; echo "    missing: the region memory row of rank 1"; }
if [ $report_ok = 1 ]; then pass "human report on stdout"; else fail "human report" "$(cat "$tmp/out")"; fi

# Paths taken (path records): per rank and for all, the contiguous paths add up to the contiguous calls
# (Put, Get, Acc, their Nb forms and the value calls) plus the strided calls the contiguous engine took,
# the strided engines to the strided calls, the vector engines to the vector calls (one descriptor each in
# profile_ops.c).  Prints what does not add up.
path_sums() {
  awk -F'\t' '
    $1 == "op" && $3 ~ /^(Nb)?(Put|Get|Acc)$|^(Put|Get)Value$/ { want[$2 " contig"] += $4 }
    $1 == "op" && $3 ~ /^(Nb)?(Put|Get|Acc)S$/ { want[$2 " strided"] += $4 }
    $1 == "op" && $3 ~ /^(Nb)?(Put|Get|Acc)V$/ { want[$2 " iov"] += $4 }
    $1 == "path" { got[$2 " " $3] += $5; n++ }
    $1 == "path" && $3 == "strided" && $4 == "contiguous" { want[$2 " contig"] += $5 }
    END {
      if (n == 0) print "no path records"
      for (k in want) if (want[k] != got[k]) print k ": " want[k] " calls, the paths add up to " got[k] + 0
      for (k in got) if (!(k in want)) print k ": paths without calls (" got[k] ")"
    }' "$1"
}
bad_paths="$(path_sums "$prof")"
if [ -z "$bad_paths" ]; then pass "path records add up to the calls per rank and for all ($(grep -c '^path' "$prof") records)"
else fail "path records do not add up to the calls" "$bad_paths"$'\n'"$(grep '^path' "$prof")"; fi
# Node-local targets (ARMCI_SHM on, one node): every contiguous and vector transfer went by load/store.
local_paths="$(awk -F'\t' '$1 == "path" && $2 == "all" && $3 != "strided" { print $3 "=" $4 }' "$prof" | sort | tr '\n' ' ')"
if [ "$local_paths" = "contig=local iov=local " ]; then pass "node-local paths: $local_paths"
else fail "node-local paths: got '$local_paths', want 'contig=local iov=local '" "$(grep '^path' "$prof")"; fi
if grep -qF "paths taken, all ranks" "$tmp/out" && grep -qE '^  iov +local +2$' "$tmp/out"; then
  pass "paths taken on stdout"
else
  fail "paths taken on stdout (want the 'iov local 2' row)" "$(cat "$tmp/out")"
fi

# ---- 1a. paths through MPI (ARMCI_SHM=0): they add up the same way -----------------------------------------
run "$tmp/out-mpi" "$builddir/tests/profile/profile_ops" ARMCI_PROFILE=1 "ARMCI_PROFILE_FILE=$tmp/mpi.tsv" ARMCI_SHM=0
rc=$?
bad_paths="$( [ -s "$tmp/mpi.tsv" ] && path_sums "$tmp/mpi.tsv" || echo "no profile file (exit $rc)")"
mpi_local="$(awk -F'\t' '$1 == "path" && $4 == "local"' "$tmp/mpi.tsv" 2>/dev/null)"
if [ $rc -eq 0 ] && [ -z "$bad_paths" ] && [ -z "$mpi_local" ]; then
  pass "ARMCI_SHM=0: path records add up to the calls, none local ($(grep -c '^path' "$tmp/mpi.tsv") records)"
else
  fail "ARMCI_SHM=0 path records (exit $rc)" "$bad_paths"$'\n'"$mpi_local"$'\n'"$(grep '^path' "$tmp/mpi.tsv" 2>/dev/null)"
fi

# ---- 1b. a region outside the pool (ARMCI_POOL_BLOCK_KB=4: 8 KiB is beyond it) ---------------------------
run "$tmp/out-own" "$builddir/tests/profile/profile_ops" ARMCI_PROFILE=1 "ARMCI_PROFILE_FILE=$tmp/own.tsv" \
  ARMCI_POOL_BLOCK_KB=4
mem="$(awk -F'\t' '$1 == "mem" { print $2, $3, $4, $5, $6, $7, $8 }' "$tmp/own.tsv" 2>/dev/null | sort | tr '\n' ';')"
want_mem="$(for ((r = 0; r < np; ++r)); do echo "$r 0 0 0 0 1 8192"; done | tr '\n' ';')"
if [ "$mem" = "$want_mem" ]; then pass "mem records: a region of its own of 8192 B per rank beyond ARMCI_POOL_BLOCK_KB"
else fail "mem records with ARMCI_POOL_BLOCK_KB=4: got '$mem', want '$want_mem'" "$(cat "$tmp/out-own")"; fi

# ---- 2. profiling off: no report, no file --------------------------------------------------------------
run "$tmp/out2" "$builddir/tests/profile/profile_ops" ARMCI_PROFILE=0 "ARMCI_PROFILE_FILE=$tmp/off.tsv"
rc=$?
if [ $rc -eq 0 ] && [ ! -e "$tmp/off.tsv" ] && ! grep -q "armci-x profile" "$tmp/out2"; then
  pass "ARMCI_PROFILE=0: no report, no file"
else
  fail "ARMCI_PROFILE=0 (exit $rc, file $([ -e "$tmp/off.tsv" ] && echo exists || echo absent))" "$(cat "$tmp/out2")"
fi

# ---- 3. an unwritable file is reported, the job still succeeds ------------------------------------------
run "$tmp/out3" "$builddir/tests/profile/profile_ops" ARMCI_PROFILE=1 "ARMCI_PROFILE_FILE=$tmp/no/such/dir/p.tsv"
rc=$?
if [ $rc -eq 0 ] && grep -q "cannot write ARMCI_PROFILE_FILE" "$tmp/out3" && grep -q "armci-x profile" "$tmp/out3"; then
  pass "unwritable ARMCI_PROFILE_FILE: message, report on stdout, exit 0"
else
  fail "unwritable ARMCI_PROFILE_FILE (exit $rc)" "$(cat "$tmp/out3")"
fi

# A file that opens but cannot take the data (/dev/full: every write fails with ENOSPC) is reported the same
# way, naming the file and the reason, instead of being left silently empty.
run "$tmp/out3b" "$builddir/tests/profile/profile_ops" ARMCI_PROFILE=1 "ARMCI_PROFILE_FILE=/dev/full"
rc=$?
if [ $rc -eq 0 ] && grep -q "cannot write ARMCI_PROFILE_FILE '/dev/full': No space left on device" "$tmp/out3b" &&
  grep -q "armci-x profile" "$tmp/out3b"; then
  pass "ARMCI_PROFILE_FILE whose writes fail: message naming the file and the reason, exit 0"
else
  fail "ARMCI_PROFILE_FILE=/dev/full (exit $rc)" "$(cat "$tmp/out3b")"
fi

# ---- 4. an ARMCI_Put override that calls PARMCI_Put is still profiled ----------------------------------
# parmci_override makes 5 ARMCI_Put calls (through its override) and 1 direct PARMCI_Put per rank.
po="$builddir/tests/parmci/parmci_override_static"
if [ -x "$po" ]; then
  run "$tmp/out4" "$po" ARMCI_PROFILE=1 "ARMCI_PROFILE_FILE=$tmp/parmci.tsv"
  rc=$?
  puts="$(awk -F'\t' '$1 == "op" && $3 == "Put" { print $2 "=" $4 }' "$tmp/parmci.tsv" 2>/dev/null | sort | tr '\n' ' ')"
  if [ $rc -eq 0 ] && [ "$puts" = "0=6 1=6 all=12 " ]; then
    pass "PARMCI_Put under an ARMCI_Put override is profiled (Put calls: $puts)"
  else
    fail "profile of parmci_override (exit $rc): Put calls '$puts', want '0=6 1=6 all=12 '" "$(cat "$tmp/out4")"
  fi
else
  echo "SKIP profile of parmci_override ($po not built)"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
