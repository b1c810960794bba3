#!/usr/bin/env bash
# Builds Global Arrays several times from one source, once per ARMCI "port", each into its own prefix, with the
# same compiler and flags, C only (--disable-f77 --without-scalapack; --fortran: with Fortran, and GA's own
# performance programs): GA's own ports against armci-x and ARMCI-MPI, for benchmarks/ga_ports.sh and
# benchmarks/ga_perf_ports.sh (issue 58).  No network: GA's source comes from a git repository or a directory
# given to it.
#
#   tools/ga-ports.sh [options]
#     --git SOURCE    a GA git repository (a clone, a bare or mirror git directory, or an address git can
#                     reach) to take TAG from when WORK/src-TAG is missing (default $GA_GIT)
#     --src DIR       a GA source directory to use as it is (a release tarball's or a checkout; autoreconf
#                     runs in it if it has no configure)
#     --tag TAG       GA's git tag (default v5.8.2)
#     --work DIR      where everything goes (default <repo>/_ga, which .gitignore ignores):
#                     WORK/src-TAG, WORK/ports-TAG/PORT (prefix), WORK/ports-TAG/build-PORT (build, logs)
#     --ports "..."   which ports (default "mpi-pr mpi-ts mpi3 armcix armci-mpi"):
#                       mpi-pr     GA's --with-mpi-pr (ComEx, one progress rank per node; NWChem's ARMCI_NETWORK=MPI-PR)
#                       mpi-ts     GA's --with-mpi-ts (ComEx, two-sided MPI, no progress rank; GA's default)
#                       mpi3       GA's --with-mpi3 (ComEx on MPI-3 RMA)
#                       armcix     --with-armci=ARMCIX (armci-x's install prefix)
#                       armci-mpi  --with-armci=ARMCI_MPI (ARMCI-MPI: a prefix, or a library file)
#     --armcix P      armci-x's install prefix (P/include/armci.h, P/lib/libarmci.*); needed for port armcix
#     --armci-mpi A   ARMCI-MPI: an install prefix (tools/build-armci-mpi.sh) or a library file, e.g. Debian's
#                     /usr/lib/x86_64-linux-gnu/libarmci-mpich.a (the default when it exists; with --mpi openmpi
#                     libarmci-openmpi.a; that is ARMCI-MPI 0.3.1, which lacks ARMCI_Init_mpi_comm: GA 5.9 and
#                     later need ARMCI-MPI 0.4 or later)
#     --armci-mpi-port NAME=A
#                     one more ARMCI-MPI build as port NAME (armci-mpi-SOMETHING, e.g. armci-mpi-master=PREFIX
#                     beside Debian's 0.3.1 as armci-mpi); may repeat; name NAME in --ports too
#     --mpi M         mpich (default) or openmpi: the MPI's suffixed wrappers (mpicc.M, mpicxx.M) unless MPICC,
#                     MPICXX say otherwise; recorded in each prefix's ga-ports.done (mpi=, mpicc=), from where
#                     benchmarks/ga_ports.sh takes the compiler and the launcher.  Give each MPI its own --work
#                     (a prefix is not rebuilt when only the MPI changed)
#     --jobs N        make -j (default 2)
#     --fortran       build GA with Fortran (F77=MPIF77, default mpif77.M; GA picks the integer size and
#                     gfortran's -fallow-argument-mismatch itself), and GA's performance programs into PREFIX/bin:
#                     global/testing/{perf,perf2,perfmod,mir_perf2,ga_shift}.x (GA's make targets) and
#                     armci_perf.x (armci/testing/perf.c, GA's benchmarks/armci_perf.c, against the port's ARMCI),
#                     for benchmarks/ga_perf_ports.sh.  Use a work dir of its own: a C-only prefix is not redone.
#     --rebuild       configure and build again even where a prefix is complete
# MPI: --mpi's suffixed wrappers (mpicc.mpich ...); override with MPICC, MPICXX, MPIF77.  Compiler flags for every
# port: GA_CFLAGS (default "-O2 -g"), with --fortran GA_FFLAGS (default "-O2 -g").  BLAS/LAPACK: GA_BLAS (default
# -lblas), GA_LAPACK (default -llapack).
# A prefix is complete when it has lib/libga.a and the file ga-ports.done; the last line of output lists the
# prefixes built (PORT=PREFIX ...), which benchmarks/ga_ports.sh takes with --ports-dir WORK/ports-TAG.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
git_src="${GA_GIT:-}" src_dir="" tag=v5.8.2 work="$repo/_ga" ports="mpi-pr mpi-ts mpi3 armcix armci-mpi"
armcix="" armci_mpi="" jobs=2 rebuild=0 mpi=mpich fortran=0
declare -A armci_mpi_ports=()
while [ $# -gt 0 ]; do
  case "$1" in
    --git) git_src="$2"; shift 2 ;;
    --src) src_dir="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --ports) ports="$2"; shift 2 ;;
    --armcix) armcix="$2"; shift 2 ;;
    --armci-mpi) armci_mpi="$2"; shift 2 ;;
    --armci-mpi-port)
      case "$2" in armci-mpi-?*=?*) armci_mpi_ports["${2%%=*}"]="${2#*=}" ;;
        *) echo "ga-ports: --armci-mpi-port takes armci-mpi-SOMETHING=PREFIX|LIBFILE, not '$2'" >&2; exit 2 ;; esac
      shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --mpi) mpi="$2"; shift 2 ;;
    --rebuild) rebuild=1; shift ;;
    --fortran) fortran=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ga-ports: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$mpi" in
  mpich | openmpi) ;;
  *) echo "ga-ports: --mpi takes mpich or openmpi, not '$mpi'" >&2; exit 2 ;;
esac
debian_armci_mpi="/usr/lib/x86_64-linux-gnu/libarmci-$mpi.a"
: "${MPICC:=mpicc.$mpi}" "${MPICXX:=mpicxx.$mpi}" "${MPIF77:=mpif77.$mpi}" "${GA_CFLAGS:=-O2 -g}" "${GA_FFLAGS:=-O2 -g}"
# GA's performance programs that --fortran builds (make targets in GA's build tree, .x appended by GA's configure)
perf_progs="perf perf2 perfmod mir_perf2 ga_shift"
: "${GA_BLAS:=-lblas}" "${GA_LAPACK:=-llapack}"
[ -n "$armci_mpi" ] || { [ ! -f "$debian_armci_mpi" ] || armci_mpi="$debian_armci_mpi"; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"
step() { echo "== ga-ports: $*"; }
logged() {
  local out="$1"; shift
  "$@" >"$out" 2>&1 || { tail -n 40 "$out" >&2; echo "ga-ports: failed: $* (whole output: $out)" >&2; exit 1; }
}

# The source: one tree for every port.
if [ -n "$src_dir" ]; then
  src="$(cd "$src_dir" && pwd)"
else
  src="$work/src-$tag"
  if [ ! -d "$src" ]; then
    [ -n "$git_src" ] || { echo "ga-ports: no GA source in $src: give --git SOURCE, --src DIR or set GA_GIT" >&2; exit 2; }
    step "GA $tag from $git_src into $src"
    mkdir -p "$src.part"
    if git --git-dir="$git_src" rev-parse -q --verify "$tag^{commit}" >/dev/null 2>&1; then
      git --git-dir="$git_src" archive "$tag" | tar -x -C "$src.part"   # a bare or mirror git directory
    elif git -C "$git_src" rev-parse -q --verify "$tag^{commit}" >/dev/null 2>&1; then
      git -C "$git_src" archive "$tag" | tar -x -C "$src.part"          # a clone with a work tree
    else
      rm -rf "$src.part"
      logged "$work/clone-$tag.out" git clone -q --branch "$tag" --depth 1 "$git_src" "$src.part"
    fi
    mv "$src.part" "$src"
  fi
fi
if [ ! -x "$src/configure" ]; then
  # GA's autogen.sh downloads its own autotools; the system's are recent enough.
  step "autoreconf -vif in $src (system autotools)"
  (cd "$src" && logged "$work/autoreconf-$tag.out" autoreconf -vif)
fi

base="$work/ports-$tag"
mkdir -p "$base"
built=()
for port in $ports; do
  prefix="$base/$port" bld="$base/build-$port"
  if [ "$rebuild" = 0 ] && [ -f "$prefix/ga-ports.done" ] && [ -f "$prefix/lib/libga.a" ] &&
    { [ "$fortran" = 0 ] || grep -q '^fortran=yes$' "$prefix/ga-ports.done"; }; then
    step "$port: already in $prefix"
    built+=("$port=$prefix"); continue
  fi
  extra_libs="" armci_inc="" am=""
  case "$port" in
    mpi-pr | mpi-ts | mpi3) net=(--with-"$port") ;;
    armcix)
      [ -n "$armcix" ] && [ -f "$armcix/include/armci.h" ] ||
        { echo "ga-ports: port armcix needs --armcix PREFIX (armci-x installed: PREFIX/include/armci.h)" >&2; exit 2; }
      armcix="$(cd "$armcix" && pwd)"
      net=(--with-armci="$armcix") armci_inc="-I$armcix/include"
      # armci-x's libarmci is C++: a static-only install needs the C++ runtime on GA's link lines.
      if [ -f "$armcix/lib/libarmci.a" ] && [ ! -e "$armcix/lib/libarmci.so" ]; then extra_libs="-lstdc++"; fi ;;
    armci-mpi | armci-mpi-*)
      if [ "$port" = armci-mpi ]; then am="$armci_mpi" opt="--armci-mpi PREFIX|LIBFILE"
      else am="${armci_mpi_ports[$port]:-}" opt="--armci-mpi-port $port=PREFIX|LIBFILE"; fi
      [ -n "$am" ] && [ -e "$am" ] || { echo "ga-ports: port $port needs $opt" >&2; exit 2; }
      net=(--with-armci="$am")
      # A library file goes on every link line through LIBS too: GA's static libga.la drops a non-libtool
      # archive from its dependency_libs (as in tools/ga-from-source.sh).
      case "$am" in *.a) extra_libs="$am" ;; esac
      # GA 5.9 and later call ARMCI_Init_mpi_comm (GA_Initialize_comm, in every GA program's base.o), which
      # ARMCI-MPI has from 0.4 on: Debian 12's 0.3.1 builds a libga.a that no program links with.
      if grep -q ARMCI_Init_mpi_comm "$src/global/src/base.c"; then
        case "$am" in *.a | *.so*) lib="$am" ;; *) lib="$am/lib/libarmci.a"; [ -f "$lib" ] || lib="$am/lib/libarmci.so" ;; esac
        syms="$(nm -g --defined-only "$lib" 2>/dev/null || true; nm -D --defined-only "$lib" 2>/dev/null || true)"
        grep -q ' [TW] ARMCI_Init_mpi_comm$' <<<"$syms" ||
          { echo "ga-ports: port $port: GA $tag calls ARMCI_Init_mpi_comm, which $lib lacks (ARMCI-MPI before 0.4?)" >&2; exit 2; }
      fi ;;
    *) echo "ga-ports: unknown port '$port' (mpi-pr mpi-ts mpi3 armcix armci-mpi armci-mpi-*)" >&2; exit 2 ;;
  esac
  if [ "$fortran" = 1 ]; then
    lang=(F77="$MPIF77" MPIF77="$MPIF77" FFLAGS="$GA_FFLAGS")
  else
    lang=(--disable-f77)
  fi
  rm -rf "$bld" "$prefix"
  mkdir -p "$bld"
  step "$port: configure ${net[*]} (output: $bld/configure.out)"
  (cd "$bld" && logged "$bld/configure.out" "$src/configure" --prefix="$prefix" "${net[@]}" \
    "${lang[@]}" --without-scalapack --with-blas="$GA_BLAS" --with-lapack="$GA_LAPACK" \
    CC="$MPICC" CXX="$MPICXX" MPICC="$MPICC" MPICXX="$MPICXX" CFLAGS="$GA_CFLAGS" CXXFLAGS="$GA_CFLAGS" \
    LIBS="$extra_libs")
  step "$port: make -j$jobs install (output: $bld/make.out)"
  logged "$bld/make.out" make -C "$bld" -j"$jobs" install
  if [ "$fortran" = 1 ]; then
    targets=()
    for t in $perf_progs; do targets+=("global/testing/$t.x"); done
    step "$port: make ${targets[*]} (output: $bld/perf-progs.out)"
    logged "$bld/perf-progs.out" make -C "$bld" -j"$jobs" "${targets[@]}"
    for t in "${targets[@]}"; do
      # libtool may leave a wrapper script with the real program in .libs (a shared build); take that one.
      if [ -x "$bld/global/testing/.libs/$(basename "$t")" ]; then cp "$bld/global/testing/.libs/$(basename "$t")" "$prefix/bin/"
      else cp "$bld/$t" "$prefix/bin/"; fi
    done
    # GA's benchmarks/armci_perf.c is armci/testing/perf.c: ARMCI alone, against the port's armci.h and libarmci.
    step "$port: armci_perf.x from armci/testing/perf.c"
    alibs="$("$prefix/bin/ga-config" --ldflags) $("$prefix/bin/ga-config" --libs)"
    case "$am" in *.a) alibs="$(echo " $alibs " | sed 's/ -larmci / /g')" ;; esac
    arpath=""
    for l in $alibs; do case "$l" in -L*) arpath+=" -Wl,-rpath,${l#-L}" ;; esac; done
    # shellcheck disable=SC2206 # flag lists
    aperf=($MPICC $GA_CFLAGS -DHAVE_STDIO_H=1 -DHAVE_STDLIB_H=1 -DHAVE_ASSERT_H=1 -DHAVE_UNISTD_H=1 -DHAVE_MATH_H=1
      -I"$prefix/include" $armci_inc -o "$prefix/bin/armci_perf.x" "$src/armci/testing/perf.c" $alibs $arpath
      $extra_libs -lm)
    # ARMCI-MPI 0.3.1 has no armci_msg_init/armci_msg_finalize (message.h): MPI_Init/MPI_Finalize are what
    # they do, so a library without them gets those.
    "${aperf[@]}" >"$bld/armci-perf.out" 2>&1 ||
      logged "$bld/armci-perf.out" "${aperf[@]}" '-Darmci_msg_init(c,v)=MPI_Init(c,v)' \
        '-Darmci_msg_finalize()=MPI_Finalize()' -include mpi.h
  fi
  # What a C program links against this prefix (read by benchmarks/ga_ports.sh): GA's own ga-config names
  # the libraries, ARMCI's (or ComEx's) among them.
  {
    echo "port=$port"
    echo "tag=$tag"
    echo "mpi=$mpi"
    echo "mpicc=$MPICC"
    echo "configure=${net[*]} ${lang[*]} --without-scalapack"
    echo "cflags=$GA_CFLAGS"
    if [ "$fortran" = 1 ]; then
      echo "fortran=yes"
      echo "fflags=$GA_FFLAGS"
      echo "perf_progs=$perf_progs armci_perf"
    fi
    libs="$("$prefix/bin/ga-config" --ldflags) $("$prefix/bin/ga-config" --libs)"
    # ARMCI given as a library file: that file, not whatever -larmci finds (Debian's libarmci.a is Open MPI's).
    case "$am" in *.a) libs="$(echo " $libs " | sed 's/ -larmci / /g')" ;; esac
    echo "libs=$libs $extra_libs"
  } >"$prefix/ga-ports.done"
  built+=("$port=$prefix")
done
echo "${built[*]}"
