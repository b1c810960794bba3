#!/usr/bin/env bash
# A static-only install of armci-x used by C and Fortran link lines that know nothing of C++.  libarmci.a
# is C++ inside (operator new/delete, std::thread, exceptions), and a static archive cannot carry its own
# dependencies, so such a link line needs the C++ runtime named once: `-larmci -lstdc++` (what
# `pkg-config --static --libs armci` prints; for Global Arrays: configure --with-armci="PREFIX -larmci
# -lstdc++", README.md).  This script installs the build into a scratch prefix (DESTDIR), removes the
# shared library so that only libarmci.a can be found, then:
#   1. links a C program with mpicc and the documented line, and runs it on 2 ranks;
#   2. links the same object with the Fortran driver (mpif77) and the same line (GA's Fortran programs);
#   3. links with the flags pkg-config --static gives;
#   4. reports (without failing) whether the bare `-larmci` link still needs the C++ runtime, so that the
#      documentation can be updated if it ever stops needing it.
# Closing line: "N passed, N failed".
set -u
builddir="${ARMCIX_BUILDDIR:-$PWD}"
MPICC="${MPICC:-mpicc.mpich}"
# The Fortran driver of the same MPI: mpicc.openmpi -> mpif77.openmpi, /opt/x/bin/mpicc -> /opt/x/bin/mpif77.
MPIF77="${MPIF77:-$( [ "$(dirname "$MPICC")" = . ] || printf %s/ "$(dirname "$MPICC")")$(basename "$MPICC" | sed 's/^mpicc/mpif77/')}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "PASS  $1"; passed=$((passed + 1)); }
fail() { echo "FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -20; failed=$((failed + 1)); }

if ! make -C "$builddir" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1; then
  fail "make install DESTDIR=..." "$tmp/install.log"
  echo "$passed passed, $failed failed"; exit 1
fi
lib="$(dirname "$(find "$tmp/root" -name libarmci.a | head -1)")"
prefix="$(dirname "$lib")"
rm -f "$lib"/libarmci.so*
[ -f "$lib/libarmci.a" ] && ! ls "$lib"/libarmci.so* >/dev/null 2>&1 && pass "static-only install in $prefix" \
  || fail "static-only install (no libarmci.a in $lib)"

cat >"$tmp/prog.c" <<'CEOF'
#include <stdio.h>
#include <mpi.h>
#include <armci.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  int me, n, errors = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  void *bases[64];
  ARMCI_Malloc(bases, sizeof(int));
  int v = 100 + me, got = -1;
  ARMCI_Put(&v, bases[(me + 1) % n], sizeof v, (me + 1) % n);
  ARMCI_Barrier();
  ARMCI_Get(bases[me], &got, sizeof got, me);
  if (got != 100 + (me + n - 1) % n) errors++;
  ARMCI_Free(bases[me]);
  ARMCI_Finalize();
  if (me == 0) printf("static link program: %s\n", errors ? "FAILED" : "OK");
  MPI_Finalize();
  return errors;
}
CEOF
documented=(-L"$lib" -larmci -lstdc++)
if "$MPICC" -c -I"$prefix/include" "$tmp/prog.c" -o "$tmp/prog.o" >"$tmp/cc.log" 2>&1; then :; else fail "compile" "$tmp/cc.log"; fi
run() {  # name, program
  if timeout 120 $MPIEXEC -n 2 "$2" >"$tmp/run.log" 2>&1 && grep -q "static link program: OK" "$tmp/run.log"; then
    pass "$1"
  else
    fail "$1" "$tmp/run.log"
  fi
}
if "$MPICC" "$tmp/prog.o" "${documented[@]}" -o "$tmp/prog_c" >"$tmp/l1.log" 2>&1; then run "mpicc $tmp/prog.o ${documented[*]}: links and runs on 2 ranks" "$tmp/prog_c"
else fail "mpicc link with ${documented[*]}" "$tmp/l1.log"; fi
if "$MPIF77" "$tmp/prog.o" "${documented[@]}" -o "$tmp/prog_f" >"$tmp/l2.log" 2>&1; then run "mpif77 (Fortran driver) link with ${documented[*]}: links and runs" "$tmp/prog_f"
else fail "mpif77 link with ${documented[*]}" "$tmp/l2.log"; fi
pc_flags="$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --define-variable=prefix="$prefix" --libs armci 2>"$tmp/pc.log")"
# shellcheck disable=SC2086
if [ -n "$pc_flags" ] && "$MPICC" "$tmp/prog.o" $pc_flags -o "$tmp/prog_pc" >"$tmp/l3.log" 2>&1; then
  run "mpicc link with pkg-config --static --libs armci ($pc_flags)" "$tmp/prog_pc"
else
  fail "mpicc link with pkg-config --static --libs armci ($pc_flags)" "$tmp/l3.log"
fi
if "$MPICC" "$tmp/prog.o" -L"$lib" -larmci -o "$tmp/prog_bare" >"$tmp/l4.log" 2>&1; then
  echo "NOTE  a bare -larmci link now works without -lstdc++: README.md's static-link note can be relaxed"
else
  echo "NOTE  a bare -larmci link still needs the C++ runtime ($(grep -o "undefined reference to .operator[^']*'" "$tmp/l4.log" | head -1)), as documented"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
