#!/usr/bin/env bash
# libarmci defines no MPI_* or PMPI_* function, shared or static (a PMPI tool must be able to take any of
# them); the wrapper library libarmcix-mpiwrap defines the wrappers, one per archive member (so that a tool
# archive linked ahead of it keeps the functions it defines).  Reads the build's libraries with nm.
# Closing line: "N passed, N failed".
set -u
builddir="${ARMCIX_BUILDDIR:-${top_builddir:-$PWD}}"
libs="$builddir/src/.libs"
passed=0 failed=0
check() {  # description, verdict (0 = pass), details
  if [ "$2" = 0 ]; then echo "PASS  $1"; passed=$((passed + 1))
  else echo "FAIL  $1"; [ -n "${3:-}" ] && echo "$3" | head -20 | sed 's/^/    /'; failed=$((failed + 1)); fi
}
mpi_defs() { grep -E ' [TtWwDdBbVv] P?MPI_' | awk '{print $NF}' | sort -u; }

for f in "$libs/libarmci.so" "$libs/libarmci.a" "$libs/libarmcix-mpiwrap.so" "$libs/libarmcix-mpiwrap.a"; do
  [ -f "$f" ] || { check "$(basename "$f") built" 1 "missing: $f"; }
done

defs="$(nm -D --defined-only "$libs/libarmci.so" 2>&1 | mpi_defs)"
[ -f "$libs/libarmci.so" ] && [ -z "$defs" ]
check "libarmci.so defines no MPI_/PMPI_ symbol" $? "$defs"

defs="$(nm --defined-only "$libs/libarmci.a" 2>/dev/null | mpi_defs)"
[ -f "$libs/libarmci.a" ] && [ -z "$defs" ]
check "libarmci.a defines no MPI_/PMPI_ symbol" $? "$defs"

# Calls between libarmci's own functions bind inside it (configure's -Wl,-Bsymbolic-functions, when the linker
# takes it): no PLT slot names a function the library defines itself (those cost a lazy lookup through every
# loaded library at their first call: doc/performance.md).  Its calls to MPI stay slots of their own, so
# PMPI tools and libarmcix-mpiwrap still take them (pmpi-tool, no-wrappers); parmci checks that a tool's
# ARMCI_* still takes the program's calls.
if grep -q '^LIBARMCI_BIND_FLAGS = -Wl,-Bsymbolic-functions' "$builddir/Makefile" 2>/dev/null; then
  own="$(readelf -r -W "$libs/libarmci.so" 2>&1 | awk '$3 ~ /JUMP_SLOT/ && $4 !~ /^0+$/ {print $5}' | sort -u)"
  mpi="$(readelf -r -W "$libs/libarmci.so" 2>&1 | awk '$3 ~ /JUMP_SLOT/ {print $5}' | grep -c '^P\{0,1\}MPI_')"
  [ -z "$own" ] && [ "$mpi" -ge 50 ]
  check "libarmci.so: no PLT slot for a function of its own; $mpi slots for MPI's functions" $? "$own"
else
  echo "SKIP  libarmci.so's own calls bind inside it: this linker took no -Bsymbolic-functions (configure)"
fi

# The wrappers: MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Barrier, MPI_Comm_size among them; no PMPI_.
defs="$(nm -D --defined-only "$libs/libarmcix-mpiwrap.so" 2>&1 | mpi_defs)"
n="$(grep -c '^MPI_' <<< "$defs")"
missing=""
for s in MPI_Init MPI_Init_thread MPI_Finalize MPI_Barrier MPI_Comm_size MPI_Comm_rank MPI_Send MPI_Recv MPI_Wait \
         MPI_Allreduce MPI_Comm_split MPI_Win_create; do
  grep -qx "$s" <<< "$defs" || missing="$missing $s"
done
[ "$n" -ge 50 ] && [ -z "$missing" ] && ! grep -q '^PMPI_' <<< "$defs"
check "libarmcix-mpiwrap.so defines the $n wrappers (MPI_Init .. MPI_Win_create), no PMPI_" $? "missing:$missing"

# One MPI_ definition per archive member.
per_member="$(nm -A --defined-only "$libs/libarmcix-mpiwrap.a" 2>/dev/null | grep -E ' [TW] MPI_' |
              awk -F: '{print $2}' | sort | uniq -c | awk '$1 > 1')"
total="$(nm -A --defined-only "$libs/libarmcix-mpiwrap.a" 2>/dev/null | grep -cE ' [TW] MPI_')"
[ "$total" -ge 50 ] && [ -z "$per_member" ]
check "libarmcix-mpiwrap.a: $total wrappers, one per member" $? "$per_member"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
