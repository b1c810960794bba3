#!/usr/bin/env bash
# Every cross-reference to a document's section in src/, tests/, tools/, benchmarks/ and doc/ -- written
# `doc/X.md, "Section"` (also without the comma, with "section", or README.md / README) -- names a heading
# that exists in that document: a Markdown heading, or a paragraph's bold title, whose text is the section's
# name or begins with it ("Cost as jobs grow" finds "## Cost as jobs grow (issue 30)").  A reference that points nowhere sends a
# reader looking for text that was renamed or removed.  Run by the suite (tests/manifest.txt, doc-refs)
# beside tools/check-layering.sh.  Also checks that every repository path the documents name exists
# (below).  Prints each dangling reference with its file and line, then "N passed, N failed" over the
# references checked.
set -u
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo" || exit 2
ref_re='(doc/[A-Za-z0-9_.-]+\.md|README(\.md)?)[,:]? *(section )?"[^"]+"'
passed=0 failed=0
# file:line:reference, one a line (grep -o gives each reference of a line separately).
while IFS= read -r hit; do
  where="${hit%%:*}"; rest="${hit#*:}"; line="${rest%%:*}"; ref="${rest#*:}"
  doc="${ref%%[,: ]*}"; doc="${doc%\"*}"
  [ "$doc" = README ] && doc=README.md
  section="${ref#*\"}"; section="${section%\"}"
  if [ ! -f "$doc" ]; then
    echo "FAIL  $where:$line: $ref -- there is no $doc"
    failed=$((failed + 1))
    continue
  fi
  # Headings ('#'s, one space, the text) and paragraph titles (a line, or a list item, that opens with
  # **bold text**): the section must be the text or its beginning.
  if sed -nE -e 's/^#{1,6} //p' -e 's/^(- )?\*\*//p' "$doc" |
     awk -v s="$section" 'index($0, s) == 1 { found = 1 } END { exit !found }'; then
    passed=$((passed + 1))
  else
    echo "FAIL  $where:$line: $ref -- no heading \"$section\" in $doc"
    failed=$((failed + 1))
  fi
done < <(grep -rnoE --include='*.cc' --include='*.h' --include='*.c' --include='*.sh' --include='*.md' \
           --include='*.txt' --include='*.am' --include='*.mk' --include='*.in' --include='*.F' --include='*.py' \
           "$ref_re" src tests tools benchmarks doc README.md configure.ac Makefile.am examples 2>/dev/null |
           grep -v '^tools/check-doc-refs.sh:')

# Every repository path named in the documents (doc/*.md, README.md, CHANGELOG.md) -- src/..., tests/...,
# tools/..., benchmarks/..., doc/..., include/..., examples/..., packaging/..., m4/..., in backticks or plain
# text, also as ../X from doc/ -- exists: a file or folder of the tree, or, for a program the build makes, its
# source (X.c, X.cc, ... beside it).  Skipped: paths with placeholders or globs (<...>, *, {...}, ?, $), paths
# inside a build tree (build/src/..., .libs/) and URLs.  Prints FILE:LINE for each missing one.
path_re='(^|[^A-Za-z0-9_./$}<>@:-])(\.\./)?(src|tests|tools|benchmarks|doc|include|examples|packaging|m4)/[A-Za-z0-9_./+-]*[<*{?$[]?'
while IFS= read -r hit; do
  where="${hit%%:*}"; rest="${hit#*:}"; line="${rest%%:*}"; path="${rest#*:}"
  path="${path#[^A-Za-z.]}"          # the character before the path
  case "$path" in *'<' | *'*' | *'{' | *'?' | *'$' | *'[') continue ;; esac
  path="${path#../}"
  while :; do case "$path" in *. | *, | *: | *\;) path="${path%?}" ;; *) break ;; esac; done
  case "$path" in */.libs/* | *.o | *.lo | *.la | *.a | *.so) continue ;; esac
  # The release tarball leaves packaging/ out (the Spack recipe records its sha256: packaging/spack/README.md),
  # so an unpacked tarball has no such folder to check the recipe's paths against.
  case "$path" in packaging/*) [ -d packaging ] || continue ;; esac
  found=0
  if [ -e "$path" ]; then
    found=1
  else
    for ext in c cc cpp h F f sh py in am mk; do [ -e "$path.$ext" ] && { found=1; break; }; done
  fi
  if [ "$found" = 1 ]; then
    passed=$((passed + 1))
  else
    echo "FAIL  $where:$line: $path -- no such file or folder in the repository"
    failed=$((failed + 1))
  fi
done < <(grep -noE "$path_re" doc/*.md README.md CHANGELOG.md 2>/dev/null | grep -vE ':[0-9]+:.?(\.\./)?[a-z0-9]+/$')
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
