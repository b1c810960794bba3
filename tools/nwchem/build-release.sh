#!/bin/bash
# Build NWChem 7.2.3 from its release source the way its documentation tells a cluster user to build
# it on an external ARMCI: ARMCI_NETWORK=ARMCI EXTERNAL_ARMCI_PATH=<prefix>.  NWChem's src/tools
# then configures and builds Global Arrays inside NWChem with GA's --with-armci=<prefix>, and
# src/config/makefile.h links the binary with -L<prefix>/lib -larmci.  No network is needed at build
# time: every source comes from a cache directory (see "Sources" below).
#
# usage: tools/nwchem/build-release.sh [--armci armcix|armci-mpi|mpi-pr|mpi-ts]
#
#   --armci armcix     (default) armci-x, built from this repository's committed HEAD
#                      ($ARMCIX_REV) out of tree, installed in $NWX_DIR/armcix-prefix.
#   --armci armci-mpi  ARMCI-MPI, built the way NWChem's src/tools/install-armci-mpi builds it
#                      (configure CC=mpicc --prefix=... --enable-g; make install) from the
#                      pmodels/armci-mpi git mirror (master, what that script clones), installed in
#                      $NWX_DIR/armci-mpi-prefix.  Its NWChem tree configures and builds its own
#                      src/tools (GA on ARMCI-MPI), then takes the compiled rest of the armcix tree
#                      (the NWChem objects see only GA's headers, which are the same) and relinks:
#                      it waits for "--armci armcix" to finish compiling, so run that first or
#                      alongside.
#   --armci mpi-pr     GA's own ARMCI (ComEx) instead of an external one: ARMCI_NETWORK=MPI-PR, for
#   --armci mpi-ts     which src/tools/GNUmakefile configures GA with --with-mpi-pr (one progress
#                      rank per node, MPI two-sided) or ARMCI_NETWORK=MPI-TS, --with-mpi-ts (MPI
#                      two-sided, no progress rank; GA's default port).  Same GA version and flags
#                      as the other builds, no EXTERNAL_ARMCI_PATH; libarmci.a is GA's and is
#                      inside the binary.  Like armci-mpi: its own src/tools, then the compiled
#                      armcix tree and a relink.  For MPI-PR, src/ccsd and src/moints add
#                      -DACC_STRIPS (their GNUmakefiles test ARMCI_NETWORK=MPI-PR): the copied
#                      sources that use a define a GNUmakefile adds for this ARMCI_NETWORK are
#                      touched so that "make" recompiles them (ccsd_idx2.F, moints_trp.F,
#                      moints_2x.F).  Nothing else in NWChem's makefiles depends on MPI-PR/MPI-TS
#                      (src/config/makefile.h adds -larmci only for ARMCI_NETWORK=ARMCI).
#
# Result: $NWX_DIR/build-<armci>/nwchem-7.2.3/bin/LINUX64/nwchem; the file
# $NWX_DIR/nwchem-<armci>.info records the ARMCI library (path, sha256) and GA it was built with.
# An MPI-PR binary needs one more process per node than it computes on (the progress rank).
#
# Build settings (NWChem's documented variables): NWCHEM_TARGET=LINUX64, USE_MPI=y, USE_MPIF=y,
# USE_MPIF4=y, USE_64TO32=y, BLAS_SIZE=4, BLASOPT/LAPACK_LIB = Debian's reference BLAS/LAPACK
# (-lblas / -llapack), no ScaLAPACK, GA_RELEASE_NO=5.9.2 (NWChem 7.2.3's own default is the GA 5.8.2
# its release tarball bundles: src/tools/ga-5.8.2.tar.gz; set NWX_GA_VERSION=5.8.2 for that),
# NWCHEM_MODULES="nwdft ccsd mp2_grad hessian vib driver property" (SCF, DFT, MP2, CCSD(T)).  MPI is
# MPICH: a directory of mpicc/mpif90/mpicxx/mpiexec symlinks to the .mpich tools goes first in PATH
# (on Debian, plain mpicc may be Open MPI).
#
# Sources (all under $NWX_DIR/cache; put them there by hand for an offline build):
#   nwchem_7.2.3.orig.tar.bz2  Debian's upstream tarball of the release (sha256 checked); downloaded
#                              from $DEBIAN_POOL if missing and DEBIAN_POOL is set (no default: the
#                              address of a Debian mirror is yours to give), else the build stops.
#   ga-5.9.2.tar.gz            made here from GlobalArrays/ga's v5.9.2 tag (git archive + autoreconf
#                              -vif with the system autotools + the two edits GA's autogen.sh makes),
#                              i.e. what get-tools-github would download; needs a bare or normal git
#                              clone of GlobalArrays/ga in $GA_GIT (only if the tarball is missing).
#   armci-mpi                  a bare or normal git clone of pmodels/armci-mpi in $ARMCI_MPI_GIT
#                              (--armci armci-mpi).
#
# Environment:
#   NWX_DIR          work and cache directory, outside the repository (default /var/tmp/nwx)
#   NWX_MAKE_J       make parallelism (default 2)
#   NWX_NICE         command prefix for the heavy steps (default "nice -n 19 ionice -c3")
#   NWCHEM_MODULES   module set (default above)
#   NWX_GA_VERSION   5.9.2 (default) or 5.8.2 (the release's bundled GA)
#   ARMCIX_REV       armci-x commit to build (default HEAD of this repository)
#   GA_GIT           GlobalArrays/ga clone (default $NWX_DIR/cache/ga.git)
#   ARMCI_MPI_GIT    pmodels/armci-mpi clone (default $NWX_DIR/cache/armci-mpi.git)
#   ARMCI_MPI_REV    armci-mpi commit (default master)
#   DEBIAN_POOL      URL of the nwchem directory of a Debian mirror's pool, i.e. <mirror>/pool/main/n/nwchem
#                    (no default; only needed when the orig tarball is not in the cache yet)
#   NWX_NO_APT=1     never call apt-get (fail if a package is missing)
#
# Every step logs to $NWX_DIR/logs/<armci>-<step>.log and leaves a stamp in $NWX_DIR/stamps, so a
# second run only does what is missing.  Measured 2026-12-06 on 2 cores shared with another
# engineer's builds (load 8-14; nice 19, make -j2): armci-x library (autogen, configure, make,
# install) 20 min; GA tarball 2 min; ARMCI-MPI 5 min; NWChem "make" for armcix 60.5 min (GA 5.9.2
# in src/tools 13 min of it, at -j1: its makefile forces that); armci-mpi tree: GA ~12 min, copy
# 2 min, "make" 15 min (walks every directory; recompiles only nwchem.o and stubs.o, then links).
# Measured 2026-12-07, NWCHEM_MODULES="nwdft ccsd" (load 7-10, the three builds started together):
# armcix 28.4 min in all (armci-x library 9.4 min, unpack 1.5 min, NWChem "make" 15.9 min of which
# GA 4.4 min); mpi-pr and mpi-ts each: GA ~5.5 min (alongside, while armcix compiled), then copy
# 1.5 min and "make" 1.8 min (mpi-pr recompiling its 3 files): done 3.4 min after armcix.
# See tools/nwchem/RESULTS.md, "NWChem 7.2.3 from release source (ARMCI_NETWORK=ARMCI)" and
# "... per GA port".
#
# The armci-x binary links libarmci.so (-larmci takes the shared library) without an rpath: run it
# with LD_LIBRARY_PATH=$NWX_DIR/armcix-prefix/lib (run-qa.sh does).  ARMCI-MPI installs only
# libarmci.a (configured as install-armci-mpi does), so its binary has ARMCI-MPI inside.
#
# Too long for a foreground shell: nohup tools/nwchem/build-release.sh > build.log 2>&1 &

set -euo pipefail

armci=armcix
if [ "${1:-}" = --armci ]; then armci=${2:-}; shift 2 || true; fi
case "$armci" in armcix | armci-mpi | mpi-pr | mpi-ts) ;;
    *) echo "build-release.sh: --armci armcix|armci-mpi|mpi-pr|mpi-ts" >&2; exit 1 ;; esac
# GA's own ports: the ARMCI_NETWORK NWChem's src/tools/GNUmakefile turns into GA's --with-<port>.
network=ARMCI
case "$armci" in mpi-pr) network=MPI-PR ;; mpi-ts) network=MPI-TS ;; esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
NWX_DIR=$(realpath -m "${NWX_DIR:-/var/tmp/nwx}")
case "$NWX_DIR/" in "$(realpath -m "$top")"/*) echo "NWX_DIR is inside the repository" >&2; exit 1 ;; esac
J=${NWX_MAKE_J:-2}
read -r -a NICE <<<"${NWX_NICE:-nice -n 19 ionice -c3}"
modules=${NWCHEM_MODULES:-nwdft ccsd mp2_grad hessian vib driver property}
ga_version=${NWX_GA_VERSION:-5.9.2}
GA_GIT=${GA_GIT:-$NWX_DIR/cache/ga.git}
ARMCI_MPI_GIT=${ARMCI_MPI_GIT:-$NWX_DIR/cache/armci-mpi.git}
ARMCI_MPI_REV=${ARMCI_MPI_REV:-master}
ARMCIX_REV=${ARMCIX_REV:-HEAD}
DEBIAN_POOL=${DEBIAN_POOL:-}
# A normal clone's git directory is its .git.
[ -d "$GA_GIT/.git" ] && GA_GIT=$GA_GIT/.git
[ -d "$ARMCI_MPI_GIT/.git" ] && ARMCI_MPI_GIT=$ARMCI_MPI_GIT/.git
NWCHEM_VERSION=7.2.3
# sha256 of Debian's nwchem_7.2.3.orig.tar.bz2, as trixie's main/source/Sources lists it for nwchem
# 7.2.3-10 (checked 2026-12-06).
NWCHEM_ORIG_SHA256=${NWCHEM_ORIG_SHA256:-8800196cf85771264f3bc9c5aa8bc24410a95ec1acc3f515e1d08dd7ca82c5fd}

cache=$NWX_DIR/cache
logs=$NWX_DIR/logs
stamps=$NWX_DIR/stamps
mkdir -p "$cache" "$logs" "$stamps"

t0=$(date +%s)
say() { printf '==> [%5ss] %s\n' "$(($(date +%s) - t0))" "$*"; }
die() { printf 'build-release.sh: error: %s\n' "$*" >&2; exit 1; }
# run_step NAME CMD...: run with output in $logs/NAME.log; on failure show its tail.
run_step() {
    local name=$1; shift
    say "$name: $* (log $logs/$name.log)"
    if ! "$@" >"$logs/$name.log" 2>&1; then
        tail -n 40 "$logs/$name.log" >&2
        die "step $name failed (log $logs/$name.log)"
    fi
}

exec 9>"$NWX_DIR/.lock-$armci"
flock -n 9 || { say "waiting for another build-release.sh --armci $armci"; flock 9; }

# ---------------------------------------------------------------- packages ---
need="gfortran g++ mpich libmpich-dev libblas-dev liblapack-dev autoconf automake libtool make
perl python3 curl bzip2 git"
missing=""
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    [ "${NWX_NO_APT:-0}" = 1 ] && die "missing packages:$missing"
    say "installing:$missing"
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $missing ||
        { apt-get update && apt-get install -y --no-install-recommends $missing; } || die "apt-get failed"
fi

# MPICH under the plain names NWChem's makefiles and GA's configure look for.
mpibin=$NWX_DIR/mpich-bin
mkdir -p "$mpibin"
for t in mpicc mpicxx mpif77 mpif90 mpifort mpiexec mpirun; do
    ln -sf "/usr/bin/$t.mpich" "$mpibin/$t"
done
export PATH=$mpibin:$PATH

# ----------------------------------------------------------------- sources ---
orig=$cache/nwchem_${NWCHEM_VERSION}.orig.tar.bz2
if [ ! -f "$orig" ]; then
    [ -n "$DEBIAN_POOL" ] || die "no $(basename "$orig") in $cache: put it there, or set DEBIAN_POOL to <a Debian mirror>/pool/main/n/nwchem to download it"
    say "downloading $DEBIAN_POOL/$(basename "$orig")"
    curl -fsSL -o "$orig.part" "$DEBIAN_POOL/$(basename "$orig")" || die "download failed; put $(basename "$orig") in $cache"
    mv "$orig.part" "$orig"
fi
if [ -n "$NWCHEM_ORIG_SHA256" ]; then
    echo "$NWCHEM_ORIG_SHA256  $orig" | sha256sum -c --quiet || die "$orig: sha256 differs"
fi

gatar=$cache/ga-$ga_version.tar.gz
if [ "$ga_version" != 5.8.2 ] && [ ! -f "$gatar" ]; then
    [ -d "$GA_GIT" ] || die "no $(basename "$gatar") in $cache and no GlobalArrays/ga clone at $GA_GIT: set GA_GIT to one"
    say "making $gatar from $GA_GIT tag v$ga_version"
    git --git-dir="$GA_GIT" rev-parse -q --verify "v$ga_version^{commit}" >/dev/null ||
        die "no tag v$ga_version in $GA_GIT (fetch GlobalArrays/ga)"
    tmp=$NWX_DIR/gatar.tmp
    rm -rf "$tmp"; mkdir -p "$tmp"
    git --git-dir="$GA_GIT" archive --prefix="ga-$ga_version/" "v$ga_version" | tar xf - -C "$tmp"
    (
        cd "$tmp/ga-$ga_version"
        # GA's autogen.sh downloads its own autotools; the system's (autoconf 2.71, automake 1.16.5,
        # libtool 2.4.7) make the same files.  Then the two edits autogen.sh makes.
        "${NICE[@]}" autoreconf -vif
        for f in configure comex/configure armci/configure; do
            grep -q lnuma "$f" && continue
            sed '/cmdline.*ignore/a\
ac_f77_v_output=`echo $ac_f77_v_output | sed "s/ -lnuma//g"`\
' "$f" >"$f.tmp" && mv "$f.tmp" "$f" && chmod ug+xr "$f"
        done
        for d in build-aux comex/build-aux armci/build-aux; do
            sed 's/\([m6][t4]|\)/mkl*|-\1/' "$d/ltmain.sh" >"$d/ltmain.sh.tmp"
            mv "$d/ltmain.sh.tmp" "$d/ltmain.sh"; chmod ug+xr "$d/ltmain.sh"
        done
        find . -name autom4te.cache -prune -exec rm -rf {} +
    ) >"$logs/ga-tarball.log" 2>&1 || die "making the GA tarball failed ($logs/ga-tarball.log)"
    tar czf "$gatar.part" -C "$tmp" "ga-$ga_version"
    gzip -t "$gatar.part"
    mv "$gatar.part" "$gatar"
    rm -rf "$tmp"
fi

# ------------------------------------------------------------------- ARMCI ---
if [ "$armci" = armcix ]; then
    prefix=$NWX_DIR/armcix-prefix
    rev=$(git -C "$top" rev-parse "$ARMCIX_REV")
    if [ "$(cat "$stamps/armcix-installed" 2>/dev/null)" != "$rev" ]; then
        say "armci-x $rev: snapshot, autogen, configure, make, install"
        rm -rf "$NWX_DIR/armcix-src" "$NWX_DIR/armcix-build" "$prefix"
        mkdir -p "$NWX_DIR/armcix-src" "$NWX_DIR/armcix-build"
        git -C "$top" archive "$rev" | tar xf - -C "$NWX_DIR/armcix-src"
        run_step armcix-lib-autogen "${NICE[@]}" "$NWX_DIR/armcix-src/autogen.sh"
        cd "$NWX_DIR/armcix-build"
        run_step armcix-lib-configure "${NICE[@]}" "$NWX_DIR/armcix-src/configure" --prefix="$prefix" \
            CC=mpicc.mpich CXX=mpicxx.mpich
        run_step armcix-lib-make "${NICE[@]}" make -j"$J"
        run_step armcix-lib-install "${NICE[@]}" make install
        echo "$rev" >"$stamps/armcix-installed"
    fi
    armci_desc="armci-x $(git -C "$top" describe --always --tags "$rev" 2>/dev/null || echo "$rev")"
elif [ "$armci" = armci-mpi ]; then
    prefix=$NWX_DIR/armci-mpi-prefix
    [ -d "$ARMCI_MPI_GIT" ] || die "no pmodels/armci-mpi clone at $ARMCI_MPI_GIT: set ARMCI_MPI_GIT to one"
    rev=$(git --git-dir="$ARMCI_MPI_GIT" rev-parse "$ARMCI_MPI_REV^{commit}") || die "no $ARMCI_MPI_REV in $ARMCI_MPI_GIT"
    if [ "$(cat "$stamps/armci-mpi-installed" 2>/dev/null)" != "$rev" ]; then
        say "ARMCI-MPI $rev as src/tools/install-armci-mpi builds it"
        src=$NWX_DIR/armci-mpi-src
        rm -rf "$src" "$prefix"; mkdir -p "$src"
        git --git-dir="$ARMCI_MPI_GIT" archive "$rev" | tar xf - -C "$src"
        cd "$src"
        run_step armci-mpi-autogen "${NICE[@]}" ./autogen.sh
        mkdir -p build; cd build
        run_step armci-mpi-configure "${NICE[@]}" ../configure CC=mpicc --prefix="$prefix" --enable-g
        run_step armci-mpi-install "${NICE[@]}" make -j"$J" install
        echo "$rev" >"$stamps/armci-mpi-installed"
    fi
    armci_desc="ARMCI-MPI $(git --git-dir="$ARMCI_MPI_GIT" describe --always --tags "$rev")"
else
    prefix=""
    armci_desc="GA $ga_version's own ARMCI, ARMCI_NETWORK=$network (--with-${armci})"
fi
if [ -n "$prefix" ]; then
    [ -f "$prefix/lib/libarmci.so" ] || [ -f "$prefix/lib/libarmci.a" ] || die "no libarmci in $prefix/lib"
    [ -d "$prefix/lib64" ] && die "$prefix/lib64 exists: GA's --with-armci would take it before lib"
fi

# ---------------------------------------------------------------- NWChem ---
export NWCHEM_TARGET=LINUX64
export USE_MPI=y USE_MPIF=y USE_MPIF4=y
export USE_64TO32=y BLAS_SIZE=4
export BLASOPT="-llapack -lblas" LAPACK_LIB="-llapack" BLAS_LIB="-lblas"
export USE_SCALAPACK='' SCALAPACK='' SCALAPACK_LIB=''
export NWCHEM_MODULES="$modules"
export ARMCI_NETWORK=$network
if [ -n "$prefix" ]; then export EXTERNAL_ARMCI_PATH=$prefix; else unset EXTERNAL_ARMCI_PATH; fi
export GA_RELEASE_NO=$ga_version
export FC=gfortran CC=gcc
export MPICC=mpicc MPIF77=mpif90 MPICXX=mpicxx
unset NWCHEM_LONG_PATHS USE_OPENMP || true

tree=$NWX_DIR/build-$armci
export NWCHEM_TOP=$tree/nwchem-$NWCHEM_VERSION
say "NWChem $NWCHEM_VERSION on $armci_desc${prefix:+ ($prefix)}, GA $ga_version, modules: $modules"
say "NWCHEM_TOP=$NWCHEM_TOP"

put_ga_tarball() {
    if [ "$ga_version" != 5.8.2 ]; then
        cp "$gatar" "$NWCHEM_TOP/src/tools/ga-$ga_version.tar.gz"
    fi
}

if [ "$armci" = armcix ]; then
    if [ ! -f "$stamps/armcix-unpacked" ]; then
        rm -rf "$tree"; mkdir -p "$tree"
        run_step armcix-unpack "${NICE[@]}" tar xjf "$orig" -C "$tree"
        [ -d "$NWCHEM_TOP/src" ] || die "unexpected layout of $orig"
        put_ga_tarball
        touch "$stamps/armcix-unpacked"
    fi
    cd "$NWCHEM_TOP/src"
    if [ ! -f "$stamps/armcix-config" ]; then
        run_step armcix-nwchem_config make nwchem_config
        touch "$stamps/armcix-config"
    fi
    if [ ! -f "$stamps/armcix-64_to_32" ]; then
        run_step armcix-64_to_32 "${NICE[@]}" make 64_to_32
        touch "$stamps/armcix-64_to_32"
    fi
    if [ ! -f "$stamps/armcix-compiled" ]; then
        # "make" builds GA in src/tools first (with --with-armci=$prefix), then NWChem, then links.
        run_step armcix-make "${NICE[@]}" make -j"$J"
        touch "$stamps/armcix-compiled"
    fi
else
    # Its own src/tools (GA configured --with-armci=ARMCI-MPI's prefix, or --with-mpi-pr/-ts) first:
    # that needs no compiled NWChem, so it can run while the armcix tree compiles.
    if [ ! -f "$stamps/$armci-unpacked" ]; then
        rm -rf "$tree"; mkdir -p "$tree"
        run_step "$armci"-unpack "${NICE[@]}" tar xjf "$orig" -C "$tree"
        put_ga_tarball
        touch "$stamps/$armci-unpacked"
    fi
    cd "$NWCHEM_TOP/src"
    if [ ! -f "$stamps/$armci-config" ]; then
        run_step "$armci"-nwchem_config make nwchem_config
        touch "$stamps/$armci-config"
    fi
    if [ ! -f "$stamps/$armci-tools" ]; then
        # src/tools' own makefile forces make -j1.
        run_step "$armci"-tools "${NICE[@]}" make -C tools
        touch "$stamps/$armci-tools"
    fi
    # Then the compiled NWChem from the armcix tree, except src/tools and the three files GA's
    # install writes into src (ga_cppflags.txt, ga_ldflags.txt, ga_use_scalapack.txt), and relink.
    if [ ! -f "$stamps/armcix-compiled" ]; then
        say "GA for $armci is built; waiting for the armcix tree to compile (build-release.sh --armci armcix)"
        while [ ! -f "$stamps/armcix-compiled" ]; do sleep 60; done
    fi
    if [ ! -f "$stamps/$armci-compiled" ]; then
        say "copying the compiled NWChem (not src/tools) from the armcix tree"
        (cd "$NWX_DIR/build-armcix/nwchem-$NWCHEM_VERSION" &&
            "${NICE[@]}" tar cf - --exclude=./src/tools --exclude=./src/ga_cppflags.txt \
                --exclude=./src/ga_ldflags.txt --exclude=./src/ga_use_scalapack.txt \
                --exclude=./bin/LINUX64/nwchem --exclude=./QA/testoutputs --exclude=./QA/scratchdir .) |
            (cd "$NWCHEM_TOP" && tar xpf -)
        rm -f "$NWCHEM_TOP/bin/LINUX64/nwchem"
        if [ "$network" != ARMCI ]; then
            # Directories whose GNUmakefile adds a -D for this ARMCI_NETWORK (MPI-PR: ccsd and moints
            # add -DACC_STRIPS): touch the sources that use it, so that make recompiles them.
            touched=""
            for mk in $(grep -l -F "ifeq (\$(ARMCI_NETWORK),$network)" "$NWCHEM_TOP"/src/*/GNUmakefile \
                "$NWCHEM_TOP"/src/*/*/GNUmakefile 2>/dev/null | grep -v -e /src/tools/ -e /src/config/ || true); do
                d=$(dirname "$mk")
                defs=$(awk -v net="$network" '$0 ~ "^ifeq \\(\\$\\(ARMCI_NETWORK\\)," net "\\)" { on = 1; next }
                    on && /^endif/ { on = 0 } on { for (i = 1; i <= NF; i++) if ($i ~ /^-D/) print substr($i, 3) }' "$mk" |
                    sed 's/=.*//' | sort -u)
                for def in $defs; do
                    for f in $(grep -l -w -- "$def" "$d"/*.F "$d"/*.f "$d"/*.c 2>/dev/null || true); do
                        touch "$f"; touched="$touched ${f#"$NWCHEM_TOP"/src/}"
                    done
                done
            done
            say "ARMCI_NETWORK=$network: recompiling${touched:- nothing}"
        fi
        # "make" finds every library up to date and only links (nwchem.o, stubs.o, the binary).
        run_step "$armci"-link "${NICE[@]}" make -j"$J"
        touch "$stamps/$armci-compiled"
    fi
fi

bin=$NWCHEM_TOP/bin/LINUX64/nwchem
[ -x "$bin" ] || die "no $bin"
# Which libarmci did the link use?  -L$prefix/lib -larmci takes libarmci.so when there is one.
if [ -z "$prefix" ]; then
    # config.log's "  $ .../configure ..." line: GA's own port, no external ARMCI.
    cmdline=$(grep -m1 '^  \$ .*configure' "$NWCHEM_TOP/src/tools/build/config.log" || true)
    case "$cmdline" in *" --with-$armci"*) ;; *) die "GA was not configured --with-$armci: $cmdline" ;; esac
    case "$cmdline" in *" --with-armci"*) die "GA was configured --with-armci: $cmdline" ;; esac
    ldd "$bin" | grep -q libarmci && die "$bin links a shared libarmci"
    # GA's ARMCI is its ComEx port: comex_* symbols in the binary.
    [ "$(nm "$bin" | grep -c ' comex_')" -gt 0 ] || die "$bin has no ComEx (comex_*) symbols"
    lib=$NWCHEM_TOP/src/tools/install/lib/libarmci.a
    [ -f "$lib" ] || lib=$NWCHEM_TOP/src/tools/install/lib/libga.a
elif [ -f "$prefix/lib/libarmci.so" ]; then
    lib=$(readlink -f "$prefix/lib/libarmci.so")
    got=$(LD_LIBRARY_PATH=$prefix/lib ldd "$bin" | awk '/libarmci/ { print $3 }')
    [ "$(readlink -f "$got")" = "$lib" ] || die "$bin resolves libarmci to '$got', not $lib"
else
    lib=$prefix/lib/libarmci.a
fi
# ARMCI-MPI's internals are ARMCII_*; armci-x has none.  The binary holds them iff it is ARMCI-MPI's.
narmcii=$(nm "$bin" | grep -c ' ARMCII_' || true)
if [ "$armci" = armci-mpi ]; then
    [ "$narmcii" -gt 0 ] || die "$bin has no ARMCI-MPI (ARMCII_*) symbols"
else
    [ "$narmcii" = 0 ] || die "$bin holds ARMCI-MPI symbols (ARMCII_*)"
fi
sum=$(sha256sum "$lib" | cut -c1-12)
{
    echo "binary: $bin"
    echo "armci: $armci_desc"
    echo "libarmci: $lib sha256 $sum"
    # ARMCI-MPI's build installs only libarmci.a (inside the binary): no run-time path to give.
    [ -n "$prefix" ] && [ -f "$prefix/lib/libarmci.so" ] && echo "run with: LD_LIBRARY_PATH=$prefix/lib"
    [ "$network" = MPI-PR ] && echo "MPI-PR: one progress rank per node (N processes compute on N-1)"
    echo "ga: $ga_version ($(sha256sum "$NWCHEM_TOP/src/tools/install/lib/libga.a" | cut -c1-12) libga.a)"
    echo "modules: $modules"
} >"$NWX_DIR/nwchem-$armci.info"
say "done: $bin"
cat "$NWX_DIR/nwchem-$armci.info"
