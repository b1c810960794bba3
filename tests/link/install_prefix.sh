#!/usr/bin/env bash
# What an external-ARMCI build of Global Arrays or NWChem takes from an armci-x install, checked on a
# `make install` to a fresh prefix:
#   1. the libraries land in PREFIX/lib and there is no PREFIX/lib64: NWChem's makefile links
#      `-L$(EXTERNAL_ARMCI_PATH)/lib -larmci` (lib only), while GA's configure --with-armci=PREFIX takes
#      PREFIX/lib64 over PREFIX/lib when both exist, so the two must find the same and only library;
#   2. GA 5.9.2's configure --with-armci probes (m4/ga_armci_network.m4), replayed as it runs them: the
#      header armci.h (AC_CHECK_HEADER), ARMCI_Init (required) and armci_group_comm, ARMCI_Initialized,
#      armci_notify, armci_msg_init, armci_msg_finalize (AC_SEARCH_LIBS: a C program calling the name,
#      linked by MPI's C compiler with -larmci), and the member ARMCI_Group.comm (AC_CHECK_MEMBER);
#      GA also probes armci_stride_info_init, classic ARMCI's internal stride iterator, whose result
#      (HAVE_ARMCI_STRIDE_INFO_INIT) no GA code outside GA's own ARMCI reads: reported, not required;
#   3. every one of those functions and ARMCI_Init_mpi_comm (GA 5.9's GA_Initialize_comm calls it) is
#      exported by libarmci.so and defined in libarmci.a;
#   4. a program linked as NWChem links (-L PREFIX/lib -larmci) starts ARMCI with ARMCI_Init_mpi_comm on
#      a communicator other than MPI_COMM_WORLD and runs on 2 ranks.
# The install goes into an empty staging root (make install DESTDIR=...), so PREFIX below is DESTDIR plus
# the configured prefix: libtool refuses `make install prefix=OTHER` (libarmcix-mpiwrap.la depends on
# libarmci.la, installed for the configured libdir), and a fresh configure would rebuild the library.  The
# check is of the default layout (libdir = ${exec_prefix}/lib); a build configured with --libdir is skipped.
# Closing line: "N passed, N failed".
set -u
builddir="${ARMCIX_BUILDDIR:-$PWD}"
MPICC="${MPICC:-mpicc.mpich}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "PASS  $1"; passed=$((passed + 1)); }
fail() { echo "FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -20; failed=$((failed + 1)); }

libdir_line="$(sed -n 's/^libdir = //p' "$builddir/Makefile")"
if [ "$libdir_line" != '${exec_prefix}/lib' ]; then
  echo "SKIP  this build's libdir is $libdir_line (configure --libdir), not the default \${exec_prefix}/lib"
  echo "0 passed, 0 failed, 1 skipped"; exit 77
fi
if ! timeout 300 make -C "$builddir" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1; then
  fail "make install DESTDIR=..." "$tmp/install.log"
  echo "$passed passed, $failed failed"; exit 1
fi
configured_prefix="$(sed -n 's/^prefix = //p' "$builddir/Makefile")"
prefix="$tmp/root$configured_prefix"
echo "PREFIX: $configured_prefix, staged in $prefix"
lib="$prefix/lib"
if [ -f "$lib/libarmci.so" ] && [ -f "$lib/libarmci.a" ] && [ -f "$lib/libarmcix-mpiwrap.so" ]; then
  pass "libarmci.so, libarmci.a, libarmcix-mpiwrap.so in PREFIX/lib"
else
  fail "libraries in PREFIX/lib: $(ls "$lib" 2>&1 | tr '\n' ' ')"
fi
if [ -e "$prefix/lib64" ]; then fail "PREFIX/lib64 exists: $(find "$prefix/lib64" | tr '\n' ' ')"
else pass "no PREFIX/lib64 (GA's --with-armci and NWChem's -L PREFIX/lib find the same library)"; fi
for f in include/armci.h include/message.h include/armciconf.h lib/pkgconfig/armci.pc lib/cmake/armci/armci-config.cmake; do
  [ -f "$prefix/$f" ] || { fail "PREFIX/$f missing"; continue; }
done
[ -f "$prefix/lib/cmake/armci/armci-config.cmake" ] && [ -f "$prefix/include/armci.h" ] &&
  pass "headers, armci.pc and armci-config.cmake installed"

# GA's configure: CPPFLAGS=-IPREFIX/include, LDFLAGS=-LPREFIX/lib, CC=MPICC, each probe a conftest.c.
# AC_CHECK_HEADER compiles the header after autoconf's default includes.
cat >"$tmp/header.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <armci.h>
int main(void) { return 0; }
CEOF
if "$MPICC" -I"$prefix/include" -c "$tmp/header.c" -o "$tmp/header.o" >"$tmp/header.log" 2>&1; then
  pass "GA probe: AC_CHECK_HEADER([armci.h])"
else fail "GA probe: AC_CHECK_HEADER([armci.h])" "$tmp/header.log"; fi
# AC_SEARCH_LIBS declares the function as `char f ();` so that no header is involved, then links it.
search_libs() {
  local f="$1"
  printf 'char %s ();\nint main (void) { return %s (); }\n' "$f" "$f" >"$tmp/$f.c"
  "$MPICC" -I"$prefix/include" "$tmp/$f.c" -o "$tmp/$f" -L"$lib" -larmci >"$tmp/$f.log" 2>&1
}
for f in ARMCI_Init armci_group_comm ARMCI_Initialized armci_notify armci_msg_init armci_msg_finalize ARMCI_Init_mpi_comm; do
  if search_libs "$f"; then pass "GA probe: AC_SEARCH_LIBS([$f], [armci])"
  else fail "GA probe: AC_SEARCH_LIBS([$f], [armci])" "$tmp/$f.log"; fi
done
if search_libs armci_stride_info_init; then
  echo "INFO  armci_stride_info_init links (HAVE_ARMCI_STRIDE_INFO_INIT=1)"
else
  echo "INFO  armci_stride_info_init is not in libarmci: GA's configure sets HAVE_ARMCI_STRIDE_INFO_INIT=0, which GA does not read"
fi
# AC_CHECK_MEMBER([ARMCI_Group.comm]): GA reads group.comm directly when this is 1.
cat >"$tmp/member.c" <<'CEOF'
#include <armci.h>
int main(void) { static ARMCI_Group a; if (sizeof a.comm) return 0; return 0; }
CEOF
if "$MPICC" -I"$prefix/include" -c "$tmp/member.c" -o "$tmp/member.o" >"$tmp/member.log" 2>&1; then
  pass "GA probe: AC_CHECK_MEMBER([ARMCI_Group.comm])"
else fail "GA probe: AC_CHECK_MEMBER([ARMCI_Group.comm])" "$tmp/member.log"; fi

# The exports themselves, in both libraries.
want=(ARMCI_Init armci_group_comm ARMCI_Initialized armci_notify armci_msg_init armci_msg_finalize ARMCI_Init_mpi_comm)
nm -D --defined-only "$lib/libarmci.so" 2>/dev/null | awk '$2 ~ /^[TtWi]$/ {print $3}' | sort -u >"$tmp/so.syms"
nm --defined-only "$lib/libarmci.a" 2>/dev/null | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u >"$tmp/a.syms"
for which in so a; do
  missing=()
  for s in "${want[@]}"; do grep -qx "$s" "$tmp/$which.syms" || missing+=("$s"); done
  if [ ${#missing[@]} -eq 0 ]; then pass "libarmci.$which defines ${want[*]}"
  else fail "libarmci.$which lacks ${missing[*]}"; fi
done

# NWChem's link line, and GA 5.9's start-up: ARMCI_Init_mpi_comm on a communicator of its own.
cat >"$tmp/init_comm.c" <<'CEOF'
#include <stdio.h>
#include <mpi.h>
#include <armci.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int errors = 0, me, n;
  if (ARMCI_Init_mpi_comm(comm) != 0) errors++;
  if (!ARMCI_Initialized()) errors++;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  void *bases[64];
  ARMCI_Malloc(bases, sizeof(long));
  long v = 7 + me, got = -1;
  ARMCI_Put(&v, bases[(me + 1) % n], sizeof v, (me + 1) % n);
  ARMCI_Barrier();
  ARMCI_Get(bases[me], &got, sizeof got, me);
  if (got != 7 + (me + n - 1) % n) errors++;
  ARMCI_Free(bases[me]);
  ARMCI_Finalize();
  MPI_Comm_free(&comm);
  if (me == 0) printf("ARMCI_Init_mpi_comm program: %s\n", errors ? "FAILED" : "OK");
  MPI_Finalize();
  return errors;
}
CEOF
if "$MPICC" -I"$prefix/include" "$tmp/init_comm.c" -o "$tmp/init_comm" -L"$lib" -larmci -Wl,-rpath,"$lib" \
     >"$tmp/init_comm.log" 2>&1 &&
   timeout 120 $MPIEXEC -n 2 "$tmp/init_comm" >>"$tmp/init_comm.log" 2>&1 </dev/null &&
   grep -q 'ARMCI_Init_mpi_comm program: OK' "$tmp/init_comm.log"; then
  if readelf -d "$tmp/init_comm" | grep -q "\[libarmci.so"; then
    pass "linked -L PREFIX/lib -larmci (NWChem's line), ARMCI_Init_mpi_comm on 2 ranks"
  else fail "the -L PREFIX/lib -larmci program does not use PREFIX/lib/libarmci.so"; fi
else fail "-L PREFIX/lib -larmci program with ARMCI_Init_mpi_comm on 2 ranks" "$tmp/init_comm.log"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
