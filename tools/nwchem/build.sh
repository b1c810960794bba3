#!/bin/bash
# Build NWChem (Debian's source and patches) with only what CCSD(T) needs,
# linked against Debian's Global Arrays and an armci-x libarmci.a.  The
# version follows the Debian release found (/etc/os-release VERSION_CODENAME):
# bookworm (Debian 12) builds 7.0.2-4 on GA 5.8.2, trixie (Debian 13) builds
# 7.2.3-10 on GA 5.9.2, each the nwchem source package of that release.
#
# usage: tools/nwchem/build.sh [--mpi mpich|openmpi] [ARMCI_LIB]
#
#   --mpi       the MPI to build for (default: $NWCHEM_MPI, else mpich).  With
#               openmpi: Debian's libga-openmpi.a, ScaLAPACK for Open MPI, and
#               ARMCI_LIB must be an armci-x built with --with-mpi=openmpi
#               (checked).  Each MPI has its own build tree and binary:
#               build-openmpi-ccsd-tce/ and nwchem-ccsd-tce-openmpi.armcix
#               for "ccsd tce".  A new Open MPI tree starts as a copy of the
#               compiled MPICH tree of the same modules when there is one:
#               only the sources that include mpif.h / mpi.h (util, peigs,
#               perfm: MPI constants and handles differ between the MPIs) are
#               compiled again, a few minutes instead of an hour.
#   ARMCI_LIB   the armci-x static library to link (default: $ARMCIX_LIB, else
#               src/.libs/libarmci.a under the current directory (a build
#               dir), else under the repository).
#
# Environment:
#   ARMCIX_NWCHEM_DIR  cache directory, outside the repository
#                      (default: /var/tmp/armcix-nwchem)
#   NWCHEM_MODULES     NWChem modules to build (default: "ccsd hessian"; plain
#                      "ccsd" does not link, "ccsd tce" adds TCE but doubles
#                      the build time).  Each module set has its own build
#                      tree and binary: the default one builds
#                      build-mpich/ and nwchem.armcix, "ccsd tce" builds
#                      build-mpich-ccsd-tce/ and nwchem-ccsd-tce.armcix, so a
#                      TCE build leaves the ccsd build alone.
#   ARMCIX_NO_APT=1    never call apt-get (fail if something is missing)
#   ARMCIX_DEBIAN_MIRROR  a Debian archive's address (e.g. the one in your
#                      apt sources), used for the source package only when
#                      apt's sources name no archive for the release; there
#                      is no default address
#
# The slow steps (source download ~2 min, 64_to_32 conversion 10-20 min for
# 7.0.2 (7.2.3's tarball comes converted: src/64_to_32 exists and make says
# "up to date"), compile 35-65 min on 2 shared cores; measured 2026-11-22: 10 +
# 62 min at load ~10) run once and are remembered by stamps in the cache; when only the ARMCI
# library changed, the script just relinks (~10 s).  The
# result is $ARMCIX_NWCHEM_DIR/nwchem.armcix (default modules); its .lib file
# records the library (path and sha256) it was linked with.
#
# Too long for a 10-minute foreground shell: run it as
#   nohup tools/nwchem/build.sh LIB > /tmp/nwchem-build.log 2>&1 &
# and watch the "==>" progress lines in the log.

set -euo pipefail

mpi=${NWCHEM_MPI:-mpich}
if [ "${1:-}" = --mpi ]; then
    mpi=${2:-}
    shift 2 || true
fi
case "$mpi" in
    mpich | openmpi) ;;
    *) echo "build.sh: error: --mpi must be mpich or openmpi, not '$mpi'" >&2; exit 1 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# The release decides the source package (the version Debian ships there: its
# patches and build system match that release's GA, MPI and ScaLAPACK).
codename=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)
case "$codename" in
    bookworm) NWCHEM_VERSION=7.0.2 DEB_VERSION=7.0.2-4 ;;
    trixie) NWCHEM_VERSION=7.2.3 DEB_VERSION=7.2.3-10 ;;
    *) echo "build.sh: error: Debian release '${codename:-unknown}' (/etc/os-release): only bookworm (NWChem 7.0.2) and trixie (7.2.3) are known" >&2
       exit 1 ;;
esac
cache=${ARMCIX_NWCHEM_DIR:-/var/tmp/armcix-nwchem}
default_modules="ccsd hessian"
modules=${NWCHEM_MODULES:-$default_modules}
# "ccsd tce" -> "-ccsd-tce"; empty for the default set (the names the first
# builds had).
flavor=""
[ "$modules" = "$default_modules" ] || flavor=-$(echo "$modules" | tr -s ' ' '-')
# What NWChem is configured with: the TCE module does not link without the property module
# (ddscf's rohf_hessv3 calls its CalcPerturbedTDPmat1), as ccsd does not without hessian.
config_modules=$modules
case " $modules " in
    *" tce "*) case " $modules " in *" property "*) ;; *) config_modules="$modules property" ;; esac ;;
esac
multiarch=x86_64-linux-gnu
deb_ga_path=/usr/lib/$multiarch/ga/$mpi
# What the MPICH build's binary was called stays its name; other MPIs add theirs.
mpi_suffix=""
[ "$mpi" = mpich ] || mpi_suffix=-$mpi
target=LINUX64

t0=$(date +%s)
say() { printf '==> [%4ss] %s\n' "$(($(date +%s) - t0))" "$*"; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- library ---
lib=${1:-${ARMCIX_LIB:-}}
if [ -z "$lib" ]; then
    for cand in "$PWD/src/.libs/libarmci.a" "$top/src/.libs/libarmci.a"; do
        [ -f "$cand" ] && { lib=$cand; break; }
    done
fi
[ -n "$lib" ] || die "no ARMCI library given (argument, ARMCIX_LIB, or run from a build dir)"
[ -f "$lib" ] || die "ARMCI library '$lib' does not exist"
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
cache=$(realpath -m "$cache")
case "$cache/" in
    "$(realpath -m "$top")"/*) die "cache dir '$cache' is inside the repository; set ARMCIX_NWCHEM_DIR" ;;
esac
mkdir -p "$cache"

# A library built for the other MPI links (both export MPI_* names) but fails at run time: check
# which MPI's symbols it references (Open MPI's handles are ompi_* objects, MPICH's are integers).
# (grep without -q: an early exit would fail the pipeline under pipefail.)
if nm -u "$lib" 2>/dev/null | grep ' ompi_mpi_comm_world$' >/dev/null; then lib_mpi=openmpi; else lib_mpi=mpich; fi
[ "$lib_mpi" = "$mpi" ] ||
    die "'$lib' is built for $lib_mpi, not $mpi (configure armci-x --with-mpi=$mpi, or build.sh --mpi $lib_mpi)"

# One build at a time per cache directory.
exec 9>"$cache/.lock"
flock -n 9 || { say "another build.sh holds $cache/.lock; waiting"; flock 9; }

say "NWChem $NWCHEM_VERSION for armci-x: cache $cache"
say "ARMCI library: $lib"
say "modules: $modules"
say "MPI: $mpi"

# --------------------------------------------------------------- packages ---
# What the compile and link need (a subset of Debian's Build-Depends: no
# Open MPI, no python3-dev since the python module is not built), and what
# run-ccsdt needs afterwards (python3, /usr/bin/time: a minimal Debian 13
# root has neither).
need_pkgs="dpkg-dev csh gfortran libglobalarrays-dev libscalapack-$mpi-dev
libblas-dev liblapack-dev python3 time"
case "$mpi" in
    mpich) need_pkgs="$need_pkgs libmpich-dev mpich" ;;
    openmpi) need_pkgs="$need_pkgs libopenmpi-dev openmpi-bin" ;;
esac
missing=""
for p in $need_pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
        missing="$missing $p"
done
apt_lock_opt="-o DPkg::Lock::Timeout=900"
if [ -n "$missing" ]; then
    [ "${ARMCIX_NO_APT:-0}" = 1 ] && die "missing packages:$missing"
    say "installing:$missing"
    # shellcheck disable=SC2086
    apt-get $apt_lock_opt install -y --no-install-recommends $missing ||
        { apt-get $apt_lock_opt update && apt-get $apt_lock_opt install -y --no-install-recommends $missing; } ||
        die "apt-get install failed"
fi

# ----------------------------------------------------------------- source ---
srcdir=$cache/src/nwchem-$NWCHEM_VERSION
srcstamp=$cache/src/.complete-$DEB_VERSION
if [ ! -f "$srcstamp" ]; then
    [ "${ARMCIX_NO_APT:-0}" = 1 ] && die "no source in $cache/src and ARMCIX_NO_APT=1"
    say "fetching Debian source nwchem=$DEB_VERSION (~190 MB)"
    rm -rf "$cache/src"
    mkdir -p "$cache/src"
    # apt-get source needs a deb-src entry for Debian's archive.  Add it in a
    # file of our own and remove it afterwards, so the system's sources are
    # left as they were.
    srclist=/etc/apt/sources.list.d/armcix-nwchem-src.sources
    # URIs of the system's "deb" entries that carry the suite $codename itself (not -security,
    # -updates), from deb822 files and one-line entries alike.
    apt_uris() {
        {
            for f in /etc/apt/sources.list.d/*.sources; do
                [ -f "$f" ] || continue
                awk -v c="$codename" '
                    function flush() { if (deb && suite && uris != "") print uris; deb = suite = 0; uris = "" }
                    /^[ \t]*$/ { flush(); next }
                    /^[ \t]*#/ { next }
                    tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
                    tolower($1) == "uris:" { uris = $2; for (i = 3; i <= NF; i++) uris = uris " " $i }
                    tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == c) suite = 1 }
                    tolower($1) == "enabled:" && tolower($2) == "no" { deb = 0 }
                    END { flush() }' "$f"
            done
            cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                sed -e 's/#.*//' -e 's/\[[^]]*\]//' |
                awk -v c="$codename" '$1 == "deb" && $3 == c { print $2 }'
        } | tr ' ' '\n' | grep -E '^(https?|file|mirror[+a-z]*)://' | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//' || true
    }
    added_src=0
    if ! apt-cache showsrc "nwchem=$DEB_VERSION" 2>/dev/null | grep -q "^Version: $DEB_VERSION"; then
        # The archive the system already uses for $codename (deb822 .sources or one-line .list
        # entries), else the one the user gives.
        uris=$(apt_uris)
        [ -n "$uris" ] || uris=${ARMCIX_DEBIAN_MIRROR:-}
        [ -n "$uris" ] || die "apt's sources name no archive for $codename: set ARMCIX_DEBIAN_MIRROR to a Debian archive's address"
        say "adding a temporary deb-src entry: $uris $codename main"
        cat >"$srclist" <<EOF
Types: deb-src
URIs: $uris
Suites: $codename
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        added_src=1
        restore_src() {
            rm -f "$srclist"
            apt-get $apt_lock_opt update >/dev/null 2>&1 || true
        }
        trap restore_src EXIT
        apt-get $apt_lock_opt update >/dev/null || die "apt-get update failed"
    fi
    if ! (cd "$cache/src" && apt-get source "nwchem=$DEB_VERSION"); then
        # An archive mirror or proxy may lack the .dsc while it serves the tarballs (seen
        # 2026-11-27: nwchem_7.2.3-10.dsc 404 behind this machine's proxy, the tarballs 200).
        # apt checked what it fetched against the signed Sources index; check the sums again
        # here and unpack as dpkg-source would: the upstream tarball, debian/, then the series.
        say "apt-get source failed; unpacking the fetched tarballs without the .dsc"
        sums=$(apt-cache showsrc nwchem | awk -v v="$DEB_VERSION" '
            /^Version:/ { this = ($2 == v) } /^[A-Za-z0-9-]+:/ { sec = $1 }
            this && sec == "Checksums-Sha256:" && NF == 3 { print $1 "  " $3 }')
        tars=$(cd "$cache/src" && ls nwchem_"$NWCHEM_VERSION".orig.tar.* nwchem_"$DEB_VERSION".debian.tar.* 2>/dev/null || true)
        [ "$(echo "$tars" | grep -c .)" = 2 ] || die "apt-get source nwchem=$DEB_VERSION failed and its tarballs are not there"
        for t in $tars; do
            grep -q "  $t\$" <<<"$sums" || die "no sha256 for $t in the Sources index"
        done
        (cd "$cache/src" && grep -E "  ($(echo $tars | tr ' ' '|'))\$" <<<"$sums" | sha256sum -c --quiet) ||
            die "the fetched tarballs do not match the Sources index"
        orig=$(echo "$tars" | grep orig)
        mkdir -p "$srcdir"
        tar xf "$cache/src/$orig" -C "$srcdir" --strip-components=1
        rm -rf "$srcdir/debian"
        tar xf "$cache/src/$(echo "$tars" | grep debian)" -C "$srcdir"
        mkdir -p "$srcdir/.pc"
        : >"$srcdir/.pc/applied-patches"
        for pf in $(grep -v '^\s*\(#\|$\)' "$srcdir/debian/patches/series" | awk '{ print $1 }'); do
            (cd "$srcdir" && patch -p1 -s -f --no-backup-if-mismatch -r - <"debian/patches/$pf") ||
                die "Debian patch $pf does not apply"
            echo "$pf" >>"$srcdir/.pc/applied-patches"
        done
    fi
    if [ "$added_src" = 1 ]; then
        say "removing the temporary deb-src entry"
        restore_src
        trap - EXIT
    fi
    # apt-get source unpacks with dpkg-source, which applies debian/patches.
    nseries=$(grep -cv '^\s*\(#\|$\)' "$srcdir/debian/patches/series")
    napplied=$(grep -cv '^\s*$' "$srcdir/.pc/applied-patches" 2>/dev/null || echo 0)
    [ "$nseries" = "$napplied" ] ||
        die "only $napplied of $nseries Debian patches are applied in $srcdir"
    rm -f "$cache/src/"*.orig.tar.* # 190 MB we no longer need
    touch "$srcstamp"
fi
say "source: $srcdir (Debian patches applied)"

# ------------------------------------------------------------ environment ---
# Mirrors debian/rules (one MPI flavour), minus python and TCE extras.
build=$cache/build-$mpi$flavor
export NWCHEM_TOP=$build
export NWCHEM_TARGET=$target
export USE_64TO32=y
export BLAS_SIZE=4
export BLAS_LIB=-lblas
export LAPACK_LIB=-llapack
export USE_SCALAPACK=yes
export SCALAPACK_SIZE=4
export NWCHEM_MODULES=$config_modules
export NWCHEM_LONG_PATHS=y
export LARGE_FILES=TRUE
export FC=gfortran
export USE_MPI=y USE_MPIF=y USE_MPIF4=y
export MPI_LIB=/usr/lib
LIBMPI=""
if [ "$mpi" = openmpi ]; then
    LIBMPI=$(pkg-config ompi-fort --libs) # as debian/rules does
else
    for w in $(mpifort.mpich -show); do
        case "$w" in -L* | -l*) LIBMPI="$LIBMPI $w" ;; esac
    done
    export LDFLAGS="${LDFLAGS:-} -pthread"
fi
export LIBMPI
export HAS_BLAS=yes
export BLASOPT="-lblas -llapack"
export MPICC=mpicc.$mpi MPICXX=mpicxx.$mpi MPIF77=mpif77.$mpi
export MPIFC=mpifort.$mpi MPIF90=mpif90.$mpi
export MPI_INCLUDE=/usr/include/$multiarch/$mpi
export MPIRUN_PATH=/usr/bin/mpirun.$mpi
export SCALAPACK=-lscalapack-$mpi
export BLACS=-lscalapack-$mpi
export LIBDIR=$build/lib/$target
if [ "$NWCHEM_VERSION" != 7.0.2 ]; then
    # 7.2.3's debian/rules adds these: generic code (no -march), the GA headers from /usr
    # (ccsd and nwdft/xc include ga-wapi.h from $GA_INCLUDE_PATH/include, patch ga_libs), no
    # ARMCI network libraries of NWChem's own choosing, USE_ARUR (archives made with 'ar rU', real
    # time stamps; makefile.h probes ar for it anyway).  The 7.2.3 source ignores LIBMPI, MPI_LIB
    # and MPI_INCLUDE ("ignored since FORCE_MPI_ENV not set") and asks $MPIFC -show (patch
    # detect_mpi), as Debian's build does.
    export USE_HWOPT=n
    export GA_INCLUDE_PATH=/usr
    export ARMCI_NETWORK=SOCKETS
    export USE_ARUR=yes
fi
unset PYTHONHOME PYTHONVERSION USE_PYTHONCONFIG

# A private GA "installation": Debian's ga-config, but linking our library.
# The library is named by full path: a bare -larmci would find
# /usr/lib/$multiarch/libarmci.a, which is ARMCI-MPI built for Open MPI.
# network_libs (NWChem's COMM_LIBS) must not name -larmci-$mpi either, or
# ARMCI-MPI's objects would be linked in beside ours.
gadir=$cache/ga-armcix$mpi_suffix
mkdir -p "$gadir/bin"
[ -x "$deb_ga_path/bin/ga-config" ] || die "$deb_ga_path/bin/ga-config missing (libglobalarrays-dev)"
sed -e "s|^dep_libs=.*|dep_libs=\"$lib -lstdc++\"|" \
    -e "s|^libs=.*|libs=\"-lga-$mpi -lscalapack-$mpi -llapack -lblas $lib -lstdc++\"|" \
    -e "s|^network_libs=.*|network_libs=\"\"|" \
    "$deb_ga_path/bin/ga-config" >"$gadir/bin/ga-config.new"
chmod +x "$gadir/bin/ga-config.new"
mv "$gadir/bin/ga-config.new" "$gadir/bin/ga-config"
got=$("$gadir/bin/ga-config" --libs)
case "$got" in *"$lib -lstdc++"*) ;; *) die "ga-config rewrite failed: --libs gives '$got'" ;; esac
case "$got $("$gadir/bin/ga-config" --network_libs)" in
    *armci-mpich* | *armci-openmpi*) die "ga-config rewrite failed: still names an ARMCI-MPI library" ;;
esac
export EXTERNAL_GA_PATH=$gadir

# Anything that changes the compiled objects (not just the link) forces a
# fresh build tree.
config_sig="$DEB_VERSION|$config_modules|$target|$(gfortran -dumpfullversion)|$(dpkg-query -W -f='${Version}' libglobalarrays-dev)"
stamp_dir=$build/.armcix

# Logs of the long steps stay in the cache; the tail is shown on failure.
run_step() { # name, command...
    local name=$1 log=$stamp_dir/$1.log
    shift
    if ! (cd "$build/src" && "$@") >"$log" 2>&1; then
        echo "---- last 60 lines of $log ----" >&2
        tail -n 60 "$log" >&2
        echo "build.sh: error: step '$name' failed (full log: $log)" >&2
        return 1
    fi
}

# Only modules added (same source, compiler, GA): reconfigure in place and let make build what is new.
old_sig=$(cat "$stamp_dir/config" 2>/dev/null || true)
if [ -n "$old_sig" ] && [ "$old_sig" != "$config_sig" ] &&
    [ "${old_sig#*|*|}" = "${config_sig#*|*|}" ] && [ "${old_sig%%|*}" = "${config_sig%%|*}" ]; then
    old_modules=$(echo "$old_sig" | cut -d'|' -f2)
    added=1
    for m in $old_modules; do case " $config_modules " in *" $m "*) ;; *) added=0 ;; esac; done
    if [ "$added" = 1 ]; then
        say "modules added ($old_modules -> $config_modules): reconfiguring in place"
        subdirs() { sed -n 's/^NW_MODULE_SUBDIRS = //p' "$build/src/config/nwchem_config.h"; }
        old_dirs=$(subdirs)
        run_step nwchem_config make nwchem_config || exit 1  # NWCHEM_MODULES is exported above
        # The 64_to_32 conversion of the directories already built is done; convert only the new ones.
        for d in $(subdirs); do
            case " $old_dirs " in *" $d "*) continue ;; esac
            say "make 64_to_32 in src/$d"
            run_step "64_to_32-$d" make -C "$d" 64_to_32 || exit 1
        done
        rm -f "$stamp_dir/compiled"
        echo "$config_sig" >"$stamp_dir/config"
    fi
fi
if [ -f "$stamp_dir/config" ] && [ "$(cat "$stamp_dir/config")" != "$config_sig" ]; then
    say "configuration changed ($(cat "$stamp_dir/config") -> $config_sig): rebuilding from scratch"
    rm -rf "$build"
fi

# A new tree for another MPI starts from the compiled MPICH tree of the same modules, if there is
# one: NWChem's Fortran and C see the MPI only through mpif.h / mpi.h (MPI_COMM_WORLD, MPI_INTEGER
# and friends are different constants in MPICH and Open MPI), so only the sources that include them
# are compiled again.  The tree has no absolute paths (NWCHEM_TOP comes from the environment), and
# cp -a keeps the times make compares.
seed=$cache/build-mpich$flavor
if [ "$mpi" != mpich ] && [ ! -f "$stamp_dir/config" ] && [ -f "$seed/.armcix/compiled" ] &&
    [ "$(cat "$seed/.armcix/config" 2>/dev/null)" = "$config_sig" ]; then
    say "copying the compiled MPICH tree $seed to $build"
    rm -rf "$build" "$build.tmp"
    cp -a "$seed" "$build.tmp"
    rm -f "$build.tmp/.armcix/"*.log "$build.tmp/.armcix/compiled" "$build.tmp/bin/$target/nwchem"
    # src/mpi_include.txt is NWChem's cache of the MPI include path (tools/check_mpi_inc.sh writes it once,
    # from guess-mpidefs): copied, it keeps -I.../mpich/include first, and the objects compiled again below
    # get MPICH's mpi.h/mpif.h (2026-11-28: util_mynodeid_ SIGSEGV in Open MPI's MPI_Comm_rank).  Made
    # again for $mpi by the next make.
    rm -f "$build.tmp/src/mpi_include.txt"
    mv "$build.tmp" "$build"
    # The sources that include an MPI header, directly or through a NWChem header that does.
    mpi_rx="mpif\.h|include *['\"<]mpi\.h|^ *use +mpi(_f08)?\b"
    src_globs=(--include='*.F' --include='*.f' --include='*.c' --include='*.F90' --include='*.f90')
    # (grep exits 1 when it finds nothing: || true, or pipefail would end the script.)
    hdrs=$(cd "$build/src" && { grep -rlE "$mpi_rx" --include='*.fh' --include='*.h' . || true; } |
        xargs -r -n1 basename | sort -u)
    mpi_srcs=$(cd "$build/src" && {
        grep -rlE "$mpi_rx" "${src_globs[@]}" . || true
        for h in $hdrs; do grep -rlE "include *['\"<]$h" "${src_globs[@]}" . || true; done
    } | sort -u)
    for f in $mpi_srcs; do
        d=$(dirname "$f")
        o=$(basename "${f%.*}").o
        # Drop the MPICH object from the directory's library, where make keeps it, and make the source
        # newer than everything so make compiles it again.
        for a in "$build/lib/$target"/*.a; do
            if ar t "$a" | grep -x "$o" >/dev/null; then
                ar d "$a" "$o"
                echo "$o" >>"$stamp_dir/mpi-objects.new" # built in the MPICH tree: must come back
            fi
        done
        rm -f "$build/src/$d/$o"
        touch "$build/src/$f"
    done
    touch "$stamp_dir/mpi-objects.new"
    mv "$stamp_dir/mpi-objects.new" "$stamp_dir/mpi-objects"
    say "$(wc -l <"$stamp_dir/mpi-objects") compiled objects include an MPI header: compiling them for $mpi ($(sort -u <"$stamp_dir/mpi-objects" | tr '\n' ' '))"
fi

if [ ! -f "$stamp_dir/config" ]; then
    say "copying the patched source tree to $build"
    rm -rf "$build"
    mkdir -p "$build"
    # The same copy debian/rules makes (build-mpich), without debian/ and the
    # documentation.
    (cd "$srcdir" && tar cf - --exclude=./debian --exclude=./.pc --exclude=./doc \
        --exclude=./web --exclude=./QA --exclude=./examples --exclude=./contrib .) |
        (cd "$build" && tar xf -)
    mkdir -p "$stamp_dir" "$build/bin/$target"
    say "make nwchem_config NWCHEM_MODULES=\"$config_modules\""
    run_step nwchem_config make nwchem_config || exit 1
    echo "$config_sig" >"$stamp_dir/config"
fi

# Prints a progress line every 2 minutes while a long step runs.
watch_start() { # log file
    (while sleep 120; do
        d=$(grep -o 'Making [a-z_]* in [^ ]*\|^converting [^ ]*' "$1" 2>/dev/null | tail -n 1)
        say "  ... ${d:-starting} ($(grep -c '' "$1" 2>/dev/null || echo 0) log lines)"
    done) &
    watcher=$!
    trap 'kill $watcher 2>/dev/null || true' EXIT
}
watch_stop() {
    kill "$watcher" 2>/dev/null || true
    wait "$watcher" 2>/dev/null || true
    trap - EXIT
}

if [ ! -f "$stamp_dir/64_to_32" ]; then
    say "make 64_to_32 (BLAS/LAPACK calls to 32-bit integers; 10-20 min on 2 cores for 7.0.2, nothing to do for 7.2.3)"
    watch_start "$stamp_dir/64_to_32.log"
    ok=1
    run_step 64_to_32 make 64_to_32 || ok=0
    watch_stop
    [ "$ok" = 1 ] || exit 1
    find "$build/src" -name include_stamp -delete
    find "$build/src" -name dependencies -delete
    touch "$stamp_dir/64_to_32"
fi

if [ ! -f "$stamp_dir/compiled" ]; then
    # "make" would also link; compiling the libraries alone lets a link
    # failure (e.g. a broken libarmci.a) be retried without the compile.
    say "compiling NWChem libraries (Debian's patches force make -j1; 35-65 min on 2 shared cores); log $stamp_dir/make.log"
    watch_start "$stamp_dir/make.log"
    ok=1
    run_step make make directories libraries || ok=0
    [ "$ok" = 1 ] && { run_step make-util make -C util || ok=0; }
    watch_stop
    [ "$ok" = 1 ] || die "compile failed"
    if [ -f "$stamp_dir/mpi-objects" ]; then
        # Every MPI-dependent object removed from the copied tree must be back, i.e. compiled for $mpi.
        have=$(for a in "$build/lib/$target"/*.a; do ar t "$a"; done | sort -u)
        lost=""
        for o in $(cat "$stamp_dir/mpi-objects"); do
            grep -x "$o" <<<"$have" >/dev/null || lost="$lost $o"
        done
        [ -z "$lost" ] || die "not compiled again for $mpi:$lost"
    fi
    touch "$stamp_dir/compiled"
fi

# ------------------------------------------------------------------- link ---
sum=$(sha256sum "$lib" | cut -d' ' -f1)
want="$lib $sum"
out=$cache/nwchem$flavor$mpi_suffix.armcix
if [ -x "$out" ] && [ -f "$out.lib" ] && [ "$(cat "$out.lib")" = "$want" ]; then
    say "up to date: $out (linked with $lib, sha256 ${sum:0:12})"
    exit 0
fi
say "linking against $lib (sha256 ${sum:0:12})"
rm -f "$build/bin/$target/nwchem"
run_step link make link || exit 1
bin=$build/bin/$target/nwchem
[ -x "$bin" ] || die "make link produced no $bin (log: $stamp_dir/link.log)"
# The link must have used our library and not pulled in ARMCI-MPI.
grep -q -- "$lib" "$stamp_dir/link.log" || die "link line does not name $lib (log: $stamp_dir/link.log)"
if grep -E -- '-larmci(-mpich|-openmpi)?( |$)' "$stamp_dir/link.log" >/dev/null; then
    die "link line names an ARMCI-MPI library (log: $stamp_dir/link.log)"
fi
cp "$bin" "$out.tmp"
mv "$out.tmp" "$out"
echo "$want" >"$out.lib"
say "done: $out ($(du -h "$out" | cut -f1))"
