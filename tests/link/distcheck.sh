#!/usr/bin/env bash
# The release tarball, as a user gets it (make distcheck's work within CI's time; doc/user-guide.md,
# "Building"):
#   1. tools/make-release.sh makes armci-x-VERSION.tar.gz from this build directory, twice: the same bytes
#      both times, and nothing tracked missing or untracked carried (the script's own check);
#   2. the tarball is unpacked in a scratch directory, configured there (no Autotools run: configure and
#      Makefile.in come with it), built and installed (make install) into a scratch prefix;
#   3. pkg-config finds armci VERSION there, and a program compiled and linked with its flags runs on 2 ranks;
#   4. the link tests of the unpacked tarball run against that build: tests/link/install_prefix.sh (GA's and
#      NWChem's layout and probes) and tests/link/cmake_consumer.sh (find_package(armci), VERSION checked);
#   5. packaging/spack/releases.txt: where the sources are those of a recorded release (same digest) and
#      the Autotools are the recorded ones, the tarball's sha256 must be the recorded one, as must
#      package.py's; otherwise that comparison is reported as not applicable;
#   6. the source tree is as it was (git status) and the scratch directory is removed.
# Run directly (np 0). Closing line: "N passed, N failed".
set -u
builddir="${ARMCIX_BUILDDIR:-$PWD}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
MPICC="${MPICC:-mpicc.mpich}"
MPIEXEC="${MPIEXEC:-mpiexec.mpich}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "PASS  $1"; passed=$((passed + 1)); }
fail() { echo "FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -25; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }
t0=$(date +%s)
since() { echo "$(( $(date +%s) - t0 )) s"; }
git_status() { git -C "$repo" -c safe.directory="$repo" status --porcelain 2>/dev/null; }
status_before="$(git_status)"

# 1. The tarball, twice.
mkdir -p "$tmp/a" "$tmp/b"
if ! "$repo/tools/make-release.sh" --builddir "$builddir" --out "$tmp/a" >"$tmp/release-a.log" 2>&1; then
  fail "tools/make-release.sh" "$tmp/release-a.log"; finish
fi
line="$(head -n 1 "$tmp/release-a.log")"
tarball="$tmp/a/$(cut -d' ' -f1 <<<"$line")"
pass "tarball: $line ($(since))"
cat "$tmp/release-a.log"
if "$repo/tools/make-release.sh" --builddir "$builddir" --out "$tmp/b" >"$tmp/release-b.log" 2>&1 &&
   cmp -s "$tarball" "$tmp/b/$(basename "$tarball")"; then
  pass "made again: the same bytes"
else fail "made again: different bytes or a failure" "$tmp/release-b.log"; fi
version="$(sed -n 's/^PACKAGE_VERSION = //p' "$builddir/Makefile")"
name="armci-x-$version"

# 2. Unpack, configure, build, install: with the MPI this build uses, no GA (the tests of the source tree).
mkdir -p "$tmp/src" "$tmp/build"
tar -xzf "$tarball" -C "$tmp/src" || { fail "unpacking $tarball"; finish; }
mpi_flavor="$(sed -n 's/^MPI_FLAVOR="\([^"]*\)".*/\1/p' "$builddir/tests/env.sh" 2>/dev/null)"
[ "$mpi_flavor" = mpich ] || [ "$mpi_flavor" = openmpi ] || mpi_flavor="$MPICC"
prefix="$tmp/prefix"
# Compiled without optimisation or debug information (CXXFLAGS): what is checked is that the tarball builds,
# installs and links, and -O0 -g0 takes a third of the default -g -O2's time.
if (cd "$tmp/build" && timeout 300 "$tmp/src/$name/configure" --prefix="$prefix" --with-mpi="$mpi_flavor" \
      --without-ga --disable-dependency-tracking CFLAGS="-O0 -g0" CXXFLAGS="-O0 -g0") >"$tmp/configure.log" 2>&1; then
  pass "configure from the tarball, --with-mpi=$mpi_flavor ($(since))"
else fail "configure from the tarball" "$tmp/configure.log"; finish; fi
if timeout 900 make -C "$tmp/build" -j2 >"$tmp/make.log" 2>&1; then pass "make ($(since))"
else fail "make" "$tmp/make.log"; finish; fi
if timeout 300 make -C "$tmp/build" install >"$tmp/install.log" 2>&1 && [ -f "$prefix/include/armci.h" ]; then
  pass "make install to a scratch prefix ($(since))"
else fail "make install" "$tmp/install.log"; finish; fi

# 3. pkg-config against the installed prefix.
if command -v pkg-config >/dev/null 2>&1; then
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  got="$(pkg-config --modversion armci 2>&1)"
  [ "$got" = "$version" ] && pass "pkg-config --modversion armci: $got" || fail "pkg-config --modversion armci: '$got', not $version"
  cat >"$tmp/pc.c" <<'CEOF'
#include <stdio.h>
#include <mpi.h>
#include <armci.h>
#include <armcix.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  void *bases[64];
  ARMCI_Malloc(bases, sizeof(long));
  long got = -1;
  *(long *)bases[me] = 0;
  ARMCI_Barrier();
  ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &got, bases[0], 1, 0);
  ARMCI_Barrier();
  int ok = me != 0 || *(long *)bases[0] == n;
  if (me == 0) printf("pkg-config program (armci-x %s): %s\n", ARMCIX_Version(), ok ? "OK" : "FAILED");
  ARMCI_Free(bases[me]);
  ARMCI_Finalize();
  MPI_Finalize();
  return !ok;
}
CEOF
  # shellcheck disable=SC2046 # pkg-config's flags are words
  if $MPICC $(pkg-config --cflags armci) "$tmp/pc.c" -o "$tmp/pc" $(pkg-config --libs armci) \
       -Wl,-rpath,"$prefix/lib" >"$tmp/pc.log" 2>&1 &&
     timeout 120 $MPIEXEC -n 2 "$tmp/pc" >>"$tmp/pc.log" 2>&1 </dev/null &&
     grep -q "pkg-config program (armci-x $version): OK" "$tmp/pc.log"; then
    pass "compiled and linked with pkg-config's flags, ran on 2 ranks, ARMCIX_Version() = $version"
  else fail "pkg-config program" "$tmp/pc.log"; fi
else
  echo "SKIP  pkg-config is not installed"
fi

# 4. The tarball's own link tests against its build (each installs it with DESTDIR itself).
for t in install_prefix cmake_consumer; do
  script="$tmp/src/$name/tests/link/$t.sh"
  [ -f "$script" ] || { fail "tests/link/$t.sh is not in the tarball"; continue; }
  ARMCIX_BUILDDIR="$tmp/build" timeout 600 bash "$script" >"$tmp/$t.log" 2>&1; rc=$?
  if [ $rc -eq 0 ]; then pass "tests/link/$t.sh against the tarball's build: $(tail -n 1 "$tmp/$t.log") ($(since))"
  elif [ $rc -eq 77 ]; then echo "SKIP  tests/link/$t.sh: $(grep -m1 '^SKIP' "$tmp/$t.log")"
  else fail "tests/link/$t.sh against the tarball's build (exit $rc)" "$tmp/$t.log"; fi
done
# find_package(armci VERSION): this version is accepted, the next major is not.
if command -v cmake >/dev/null 2>&1; then
  major="${version%%.*}"
  mkdir -p "$tmp/cmv"
  cat >"$tmp/cmv/CMakeLists.txt" <<CEOF
cmake_minimum_required(VERSION 3.13)
project(v C)
find_package(armci $version EXACT QUIET CONFIG)
set(exact \${armci_FOUND})
unset(armci_DIR CACHE)
find_package(armci $((major + 1)).0 QUIET CONFIG)
message(STATUS "versions: exact=\${exact} next-major=\${armci_FOUND}")
CEOF
  if timeout 120 cmake -S "$tmp/cmv" -B "$tmp/cmv/b" -DCMAKE_C_COMPILER="$MPICC" -DCMAKE_PREFIX_PATH="$prefix" \
       >"$tmp/cmv.log" 2>&1 && grep -q "versions: exact=1 next-major=0" "$tmp/cmv.log"; then
    pass "find_package(armci $version EXACT) found, find_package(armci $((major + 1)).0) not"
  else fail "find_package(armci VERSION)" "$tmp/cmv.log"; fi
fi

# 5. The recorded checksum (how it is recorded: packaging/spack/README.md).
rel="$repo/packaging/spack/releases.txt"
pkg="$repo/packaging/spack/packages/armci-x/package.py"
sources="$(sed -n '2s/^sources \([^ ]*\) autotools \([^ ]*\) .*/\1/p' "$tmp/release-a.log")"
tools_v="$(sed -n '2s/^sources \([^ ]*\) autotools \([^ ]*\) .*/\2/p' "$tmp/release-a.log")"
if [ -f "$rel" ] && recorded="$(grep "^$version " "$rel")"; then
  read -r _ r_sha r_sources r_tools r_epoch <<<"$recorded"
  pkg_sha="$(sed -n "s/^    version(\"$version\", sha256=\"\([0-9a-f]*\)\").*/\1/p" "$pkg")"
  [ "$pkg_sha" = "$r_sha" ] && pass "package.py's sha256 for $version is releases.txt's" ||
    fail "package.py's sha256 for $version ('$pkg_sha') is not releases.txt's ($r_sha)"
  if [ "$sources" != "$r_sources" ]; then
    echo "INFO  the sources ($sources) are not $version's as recorded ($r_sources): a tree after (or before) the release, checksum not compared"
  elif [ "$tools_v" != "$r_tools" ]; then
    echo "INFO  Autotools $tools_v, the release was made with $r_tools: checksum not compared"
  else
    mkdir -p "$tmp/c"
    if SOURCE_DATE_EPOCH="$r_epoch" "$repo/tools/make-release.sh" --builddir "$builddir" --out "$tmp/c" >"$tmp/release-c.log" 2>&1 &&
       [ "$(cut -d' ' -f3 "$tmp/release-c.log" | head -n 1)" = "$r_sha" ]; then
      pass "the release's sources: the tarball's sha256 is the recorded $r_sha"
    else fail "the release's sources, but the tarball's sha256 is not the recorded $r_sha" "$tmp/release-c.log"; fi
  fi
else
  echo "INFO  no checksum recorded for $version in packaging/spack/releases.txt"
fi

# 6. Nothing left in the source tree.
if [ "$(git_status)" = "$status_before" ]; then pass "the source tree is unchanged (git status)"
else fail "the source tree changed: $(diff <(echo "$status_before") <(git_status) | tr '\n' ' ')"; fi
echo "took $(since)"
finish
