#!/usr/bin/env bash
# ABI and link checks of armci-x against ARMCI-MPI 0.3.1 (Debian's libarmci-mpi-dev) and Debian's Global
# Arrays (libga-mpich.a), which must link against armci-x unchanged:
#   (a) every ARMCI symbol libga-mpich.a needs is defined in src/.libs/libarmci.so and libarmci.a;
#   (b) every function declared in include/armci.h, armcix.h, message.h is defined in the library (a
#       generated program takes the address of each and is linked against the static and shared library);
#   (c) every function ARMCI-MPI's headers declare is declared by ours with the same prototype, and is
#       weak/strong in our library exactly when it is in ARMCI-MPI's (ARMCI_x weak aliases of PARMCI_x, so
#       that a profiling layer can override ARMCI_x);
#   (d) struct sizes, field offsets, enum and macro values printed by one C program compiled once against
#       ARMCI-MPI's headers and once against ours are identical.
# Prototypes are read with gcc -aux-info (the compiler's own view of the headers, typedef names kept).
#
# Usage: tests/abi/check_symbols.sh [BUILD_DIR]
#   BUILD_DIR defaults to $ARMCIX_BUILDDIR (exported by tests/check.sh), else the current directory.
# Environment: MPICC (default mpicc.mpich), ARMCI_MPI_INCLUDE (default /usr/include),
#   ARMCI_MPI_LIB (default /usr/lib/x86_64-linux-gnu/libarmci-mpich.a),
#   GA_MPICH_LIB (default /usr/lib/x86_64-linux-gnu/libga-mpich.a), VERBOSE=1 prints every passing check.
# Closing line: "N passed, N failed" (plus ", N skipped"); exit status non-zero if anything failed.
set -u

builddir="${1:-${ARMCIX_BUILDDIR:-$PWD}}"
srcdir="${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}"
CC="${MPICC:-mpicc.mpich}"
ref_inc="${ARMCI_MPI_INCLUDE:-/usr/include}"
ref_lib="${ARMCI_MPI_LIB:-/usr/lib/x86_64-linux-gnu/libarmci-mpich.a}"
ga_lib="${GA_MPICH_LIB:-/usr/lib/x86_64-linux-gnu/libga-mpich.a}"
so="$builddir/src/.libs/libarmci.so"
ar="$builddir/src/.libs/libarmci.a"
our_inc=(-I"$srcdir/include" -I"$builddir/include")

passed=0 failed=0 skipped=0
pass() {
  passed=$((passed + 1))
  if [ "${VERBOSE:-0}" = 1 ]; then echo "ok    $*"; fi
}
fail() {
  failed=$((failed + 1))
  echo "FAIL  $*"
}
skip() {
  skipped=$((skipped + 1))
  echo "SKIP  $*"
}
section() { echo "== $*"; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/armcix-abi.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$ar" ]; then
  echo "check_symbols.sh: $ar not found (build the library in $builddir first)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
if ! command -v "$CC" > /dev/null; then
  echo "check_symbols.sh: C compiler $CC not found (set MPICC)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
have_so=0
[ -f "$so" ] && have_so=1

# Defined global symbols of a library: "name binding" with binding T (strong) or W (weak).
defined_syms() {  # $1 = library, $2 = nm option for the dynamic table (-D) or empty
  # shellcheck disable=SC2086
  nm $2 --defined-only "$1" 2> /dev/null | awk 'NF == 3 && ($2 == "T" || $2 == "W" || $2 == "D" || $2 == "B") {
    print $3, ($2 == "W" ? "W" : "T") }' | sort -u -k1,1
}
defined_syms "$ar" "" > "$tmp/our_a.syms"
if [ $have_so = 1 ]; then defined_syms "$so" "-D" > "$tmp/our_so.syms"; fi

# Function prototypes declared by armci.h, armcix.h and message.h, one "name<TAB>prototype" per line.
prototypes() {  # $1 = output, rest = include flags
  local out="$1"
  shift
  printf '#include <armci.h>\n#include <armcix.h>\n#include <message.h>\n' > "$tmp/headers.c"
  if ! "$CC" "$@" -fsyntax-only -aux-info "$out.aux" "$tmp/headers.c" 2> "$out.err"; then
    cat "$out.err" >&2
    return 1
  fi
  grep -E '^/\* ([^ ]*/)?(armci|armcix|message)\.h:' "$out.aux" | sed -E 's|^/\* [^*]* \*/ ||; s/  +/ /g' |
    awk '{ if (match($0, /[A-Za-z_][A-Za-z0-9_]* \(/)) print substr($0, RSTART, RLENGTH - 2) "\t" $0 }' |
    sort -u -k1,1 > "$out"
}

# --- (a) what Debian's Global Arrays needs --------------------------------------------------------------
section "(a) ARMCI symbols needed by $ga_lib"
if [ -f "$ga_lib" ]; then
  nm "$ga_lib" 2> /dev/null | awk '$1 == "U" { print $2 }' | grep -E 'armci|ARMCI' | sort -u > "$tmp/ga_undef"
  nm --defined-only "$ga_lib" 2> /dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/ga_def"
  comm -23 "$tmp/ga_undef" "$tmp/ga_def" > "$tmp/ga_needs"
  n_needs=$(wc -l < "$tmp/ga_needs")
  echo "   $n_needs symbols"
  # A broken nm pipeline would make every later check vacuous.
  if [ "$n_needs" -ge 70 ]; then pass "GA needs $n_needs ARMCI symbols"; else fail "only $n_needs ARMCI symbols found in $ga_lib (expected 76)"; fi
  while read -r sym; do
    if grep -q "^$sym " "$tmp/our_a.syms"; then pass "$sym in libarmci.a"; else fail "$sym (needed by GA) is not defined in $ar"; fi
    if [ $have_so = 1 ]; then
      if grep -q "^$sym " "$tmp/our_so.syms"; then pass "$sym in libarmci.so"; else fail "$sym (needed by GA) is not exported by $so"; fi
    fi
  done < "$tmp/ga_needs"
  [ $have_so = 1 ] || skip "libarmci.so not built: GA symbols checked in libarmci.a only"
else
  skip "$ga_lib not installed"
fi

# --- (b) every declared function is defined ----------------------------------------------------------------
section "(b) functions declared in include/armci.h, armcix.h, message.h are defined"
if prototypes "$tmp/ours.protos" "${our_inc[@]}"; then
  n_decl=$(wc -l < "$tmp/ours.protos")
  echo "   $n_decl functions declared"
  if [ "$n_decl" -ge 150 ]; then pass "$n_decl declarations parsed"; else fail "only $n_decl declarations parsed from our headers"; fi
  {
    printf '#include <armci.h>\n#include <armcix.h>\n#include <message.h>\n#include <stdio.h>\n'
    printf 'typedef void (*fn_t)(void);\nstatic fn_t fns[] = {\n'
    cut -f1 "$tmp/ours.protos" | sed 's/.*/  (fn_t)\&&,/'
    printf '};\nint main(void) {\n  size_t n = 0;\n'
    printf '  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; ++i) n += fns[i] != 0;\n'
    printf '  printf("%%zu\\n", n);\n  return 0;\n}\n'
  } > "$tmp/probe.c"
  link_check() {  # $1 = label, rest = link arguments
    local label="$1"
    shift
    if "$CC" "${our_inc[@]}" -o "$tmp/probe_$label" "$tmp/probe.c" "$@" > "$tmp/link_$label.log" 2>&1; then
      local n
      n=$(LD_BIND_NOW=1 "$tmp/probe_$label" 2> "$tmp/run_$label.log")
      if [ "$n" = "$n_decl" ]; then
        passed=$((passed + n_decl))
      else
        fail "$label: the probe program linked but did not run ($(head -c 300 "$tmp/run_$label.log"))"
      fi
      return
    fi
    grep -oE "undefined reference to \`[A-Za-z_][A-Za-z0-9_]*'" "$tmp/link_$label.log" | sed -E "s/.*\`(.*)'/\1/" |
      sort -u > "$tmp/missing_$label"
    if [ ! -s "$tmp/missing_$label" ]; then
      fail "$label: linking the probe program failed:"
      sed 's/^/      /' "$tmp/link_$label.log" | head -20
      return
    fi
    while read -r name; do
      if grep -qx "$name" "$tmp/missing_$label"; then fail "$label: $name is declared but not defined"; else pass "$label: $name"; fi
    done < <(cut -f1 "$tmp/ours.protos")
  }
  link_check static "$ar" -lstdc++ -lm -lpthread
  if [ $have_so = 1 ]; then
    link_check shared -L"$builddir/src/.libs" -Wl,-rpath,"$builddir/src/.libs" -larmci
  else
    skip "libarmci.so not built"
  fi
else
  fail "our headers do not compile as C"
fi

# --- (c) ARMCI-MPI's declarations: same prototypes, same weak/strong binding ---------------------------------
section "(c) ARMCI-MPI 0.3.1 declarations ($ref_inc) are ours, with the same prototypes and bindings"
if [ -f "$ref_inc/armci.h" ] && prototypes "$tmp/ref.protos" -I"$ref_inc"; then
  echo "   $(wc -l < "$tmp/ref.protos") functions declared by ARMCI-MPI"
  [ -f "$ref_lib" ] && defined_syms "$ref_lib" "" > "$tmp/ref_a.syms"
  while IFS=$'\t' read -r name proto; do
    ours=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$tmp/ours.protos" 2> /dev/null)
    if [ -z "$ours" ]; then
      fail "$name is declared by ARMCI-MPI but not by our headers"
    elif [ "$ours" != "$proto" ]; then
      fail "$name: prototype differs: ARMCI-MPI '$proto', ours '$ours'"
    else
      pass "prototype of $name"
    fi
    [ -f "$ref_lib" ] || continue
    ref_bind=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/ref_a.syms")
    [ -n "$ref_bind" ] || continue  # declared but not defined by ARMCI-MPI itself
    for lib in a so; do
      [ -f "$tmp/our_$lib.syms" ] || continue
      our_bind=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/our_$lib.syms")
      if [ -z "$our_bind" ]; then
        fail "$name is defined by ARMCI-MPI but not in our libarmci.$lib"
      elif [ "$our_bind" != "$ref_bind" ]; then
        fail "$name is $([ "$ref_bind" = W ] && echo weak || echo strong) in ARMCI-MPI but $([ "$our_bind" = W ] && echo weak || echo strong) in libarmci.$lib"
      else
        pass "binding of $name in libarmci.$lib"
      fi
    done
  done < "$tmp/ref.protos"
  [ -f "$ref_lib" ] || skip "$ref_lib not installed: bindings not compared"
else
  skip "ARMCI-MPI headers not found in $ref_inc"
fi

# --- (d) layouts and values ----------------------------------------------------------------------------
section "(d) type layouts, enum and macro values: ARMCI-MPI's headers vs ours"
cat > "$tmp/layout.c" << 'EOF'
#include <armci.h>
#include <armcix.h>
#include <message.h>
#include <stddef.h>
#include <stdio.h>
#define SIZE(t) printf("sizeof(%s)\t%zu\n", #t, sizeof(t))
#define ALIGN(t) printf("alignof(%s)\t%zu\n", #t, _Alignof(t))
#define OFF(t, f) printf("offsetof(%s, %s)\t%zu\n", #t, #f, offsetof(t, f))
#define FSIZE(t, f) printf("sizeof(%s.%s)\t%zu\n", #t, #f, sizeof(((t*)0)->f))
#define VAL(v) printf("%s\t%ld\n", #v, (long)(v))
int main(void) {
  SIZE(armci_hdl_t); ALIGN(armci_hdl_t); OFF(armci_hdl_t, target); OFF(armci_hdl_t, aggregate);
  FSIZE(armci_hdl_t, target); FSIZE(armci_hdl_t, aggregate);
  SIZE(ARMCI_Group); ALIGN(ARMCI_Group); OFF(ARMCI_Group, comm); OFF(ARMCI_Group, noncoll_pgroup_comm);
  OFF(ARMCI_Group, grp_to_abs); OFF(ARMCI_Group, abs_to_grp); OFF(ARMCI_Group, rank); OFF(ARMCI_Group, size);
  FSIZE(ARMCI_Group, comm); FSIZE(ARMCI_Group, rank); FSIZE(ARMCI_Group, size);
  SIZE(armci_giov_t); ALIGN(armci_giov_t); OFF(armci_giov_t, src_ptr_array); OFF(armci_giov_t, dst_ptr_array);
  OFF(armci_giov_t, bytes); OFF(armci_giov_t, ptr_array_len); FSIZE(armci_giov_t, bytes);
  FSIZE(armci_giov_t, ptr_array_len);
  SIZE(struct armcix_mutex_hdl_s); OFF(struct armcix_mutex_hdl_s, my_count);
  OFF(struct armcix_mutex_hdl_s, max_count); OFF(struct armcix_mutex_hdl_s, grp);
  OFF(struct armcix_mutex_hdl_s, windows); OFF(struct armcix_mutex_hdl_s, bases);
  SIZE(armcix_mutex_hdl_t);
  SIZE(armci_size_t); VAL((armci_size_t)-1 < 0);
  printf("armci_size_t is long\t%d\n", _Generic((armci_size_t)0, long: 1, default: 0));
  SIZE(armci_domain_t); VAL((armci_domain_t)-1 < 0);
  SIZE(enum ARMCI_Acc_e); SIZE(enum ARMCI_Rmw_e); SIZE(enum armci_scope_e); SIZE(enum armci_type_e);
  VAL(ARMCI_ACC_INT); VAL(ARMCI_ACC_LNG); VAL(ARMCI_ACC_FLT); VAL(ARMCI_ACC_DBL); VAL(ARMCI_ACC_CPL);
  VAL(ARMCI_ACC_DCP);
  VAL(ARMCI_FETCH_AND_ADD); VAL(ARMCI_FETCH_AND_ADD_LONG); VAL(ARMCI_SWAP); VAL(ARMCI_SWAP_LONG);
  VAL(ARMCI_DOMAIN_SMP);
  VAL(SCOPE_ALL); VAL(SCOPE_NODE); VAL(SCOPE_MASTERS);
  VAL(ARMCI_INT); VAL(ARMCI_LONG); VAL(ARMCI_LONG_LONG); VAL(ARMCI_FLOAT); VAL(ARMCI_DOUBLE);
  VAL(ARMCI_MPI);
  printf("ARMCII_MPI_SIZE_T == MPI_LONG\t%d\n", ARMCII_MPI_SIZE_T == MPI_LONG);
  return 0;
}
EOF
layout() {  # $1 = label, rest = include flags
  local label="$1"
  shift
  if ! "$CC" "$@" -o "$tmp/layout_$label" "$tmp/layout.c" > "$tmp/layout_$label.log" 2>&1; then
    sed 's/^/      /' "$tmp/layout_$label.log" | head -20
    return 1
  fi
  "$tmp/layout_$label" > "$tmp/layout_$label.txt"
}
if [ ! -f "$ref_inc/armci.h" ]; then
  skip "ARMCI-MPI headers not found in $ref_inc"
elif ! layout ref -I"$ref_inc"; then
  fail "the layout program does not compile against ARMCI-MPI's headers"
elif ! layout ours "${our_inc[@]}"; then
  fail "the layout program does not compile against our headers"
else
  echo "   $(wc -l < "$tmp/layout_ref.txt") items"
  while IFS=$'\t' read -r key value; do
    ours=$(awk -F'\t' -v k="$key" '$1 == k { print $2 }' "$tmp/layout_ours.txt")
    if [ "$ours" = "$value" ]; then pass "$key = $value"; else fail "$key: ARMCI-MPI $value, ours ${ours:-(missing)}"; fi
  done < "$tmp/layout_ref.txt"
fi

if [ $skipped -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
