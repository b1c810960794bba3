#!/usr/bin/env bash
# Nothing of our own machines in the tree (issue 59): no absolute path of a development machine (/work/...,
# /home/..., /root/... outside the Debian 13 root, a mirror directory of clones) and no download address
# (http://, https://, ftp://, git://, ssh://, rsync:// followed by a host, file:///some/dir).  A user's
# machine has none of them: scripts take sources and addresses from arguments or variables, and recorded
# results (benchmarks/results/, tools/nwchem/RESULTS.md) name placeholders such as <build>, <src>, <out>
# instead of where things lay -- there also no /tmp or /var/tmp directory.  Run by the suite
# (tests/manifest.txt, machine-paths) beside tools/check-doc-refs.sh.  Prints each offending line as
# FILE:LINE: text, then "N passed, N failed" over the files checked; exits 1 if one failed.
#
# Usage: tools/check-no-machine-paths.sh   (checks the tree this script is in)
set -u
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo" || exit 2
self=tools/check-no-machine-paths.sh

# Not preceded by a name's character, '$', '}' or '<' (so $NWX_DIR/work/, ${x}/root/ and <out>/tmp/ are not
# absolute paths).
b='(^|[^A-Za-z0-9_.$}<>-])'
# Everywhere: paths of development machines and download addresses.
bad="$b/(work|home|Users|scratch|mnt|media)/|$b/root/|(https?|ftp|git|ssh|rsync)://[A-Za-z0-9]|file:///[A-Za-z]"
# In recorded results also scratch and build directories: their place is the placeholder <build>, <out>...
bad_results="$bad|$b/(var/)?tmp/[A-Za-z0-9]"
is_results() { case "$1" in benchmarks/results/* | tools/nwchem/RESULTS.md) return 0 ;; esac; return 1; }

# The allow-list: text removed from a line before the check, each with the reason it is acceptable.
allow=(
  # Build directories inside the Debian 13 root that tools/debian13-root.sh makes (HOME=/root there), used by
  # .ci/run and documented beside it (doc/user-guide.md; doc/performance.md's example): a path of that root,
  # which the script creates on any machine, not one of ours.
  "/root/(ci-)?build(-[a-z0-9]+)?"
  # Domains reserved for examples (RFC 2606): packaging/spack's placeholder homepage and url until armci-x
  # publishes releases; Spack takes the tarball from a local mirror by the url's file name and never from
  # there (packaging/spack/README.md).
  "https?://example\.(org|com|net)(/[^ \"'\`]*)?"
)
# System paths the patterns above do not match and that stay acceptable everywhere but in recorded results
# (listed so that nobody adds them to the patterns by mistake): /usr/lib/x86_64-linux-gnu, /usr/include and
# the rest of /usr (Debian's packages), /etc/apt (apt's sources), /dev/shm and /proc (the library's own
# names), /var/cache/armcix/debian13 (ARMCIX_DEBIAN13_ROOT's documented default), /var/tmp/nwx and
# /var/tmp/armcix-nwchem (NWX_DIR's and ARMCIX_NWCHEM_DIR's documented defaults), /tmp and mktemp templates
# of /tmp (scratch files of example commands and of the scripts), /armcix (the repository inside the root).

# The files: git's list in a clone; else (an unpacked tarball) the files of the source folders and the
# top-level documents, less what autogen.sh (libtoolize's m4/libtool.m4 and m4/lt*.m4), configure and make
# write there (which name other projects' addresses and the build's own paths).
if files="$(git -c safe.directory="$repo" ls-files 2>/dev/null)" && [ -n "$files" ]; then
  :
else
  dirs=()
  for d in .ci src include tests tools benchmarks doc packaging examples m4 *.md *.ac *.am *.in *.sh; do
    [ -e "$d" ] && dirs+=("$d")
  done
  files="$(find "${dirs[@]}" -type f ! -path '*/logs/*' ! -path '*/.libs/*' ! -path '*/.deps/*' \
             ! -path 'benchmarks/build/*' ! -path 'tests/ga/bin/*' ! -name results-latest.txt \
             ! -name Makefile ! -name Makefile.in ! -name env.sh ! -name armciconf.h ! -name '*.o' \
             ! -name '*.lo' ! -name '*.la' ! -name '*.a' ! -name '*.so*' ! -name '*.log' ! -name '*.trs' \
             ! -path 'm4/libtool.m4' ! -path 'm4/lt*.m4' ! -name 'config.h.in')"
fi

passed=0 failed=0
while IFS= read -r f; do
  [ -f "$f" ] && [ "$f" != "$self" ] || continue
  if is_results "$f"; then re="$bad_results"; else re="$bad"; fi
  # grep -I: binary files have no text to check.
  hits="$(grep -InE "$re" -- "$f" 2>/dev/null)" || { passed=$((passed + 1)); continue; }
  bad_here=0
  while IFS= read -r hit; do
    text="${hit#*:}"
    for a in "${allow[@]}"; do text="$(printf '%s\n' "$text" | sed -E "s#$a##g")"; done
    if printf '%s\n' "$text" | grep -qE "$re"; then
      echo "FAIL  $f:$(printf '%.200s' "$hit")"
      bad_here=1
    fi
  done <<<"$hits"
  if [ "$bad_here" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done <<<"$files"
[ "$failed" = 0 ] || echo "(a path of a machine: take it from an argument or variable, or write a placeholder; see $self)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
