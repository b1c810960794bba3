#!/bin/sh
# Usage: gen-call.sh LIST FILE [ALL...]
# Writes on standard output the source FILE (.../mpi_send.cc) of the wrapper on LIST's line for its MPI
# function (calls.def: MPI_Send).  ALL: every file the build makes from LIST (src/Makefile.mk,
# mpiwrap_generated); fails, naming the file or the line, unless each line of LIST has one of them and the
# reverse, so that the two lists cannot drift apart.
set -eu
list="$1" file="$2"
shift 2
base="${file##*/}"
exec awk -v list="$list" -v want="${base%.cc}" -v all="$*" '
  BEGIN {
    n = split(all, files, " ")
    for (i = 1; i <= n; i++) { f = files[i]; sub(/.*\//, "", f); sub(/\.cc$/, "", f); made[f] = 1 }
  }
  /^[ \t]*(\/\/.*)?$/ { next }
  {
    if (!match($0, /^ARMCIX_[A-Z0-9_]+\(MPI_[A-Za-z0-9_]+, .*\)$/)) {
      printf "%s:%d: not a line SHAPE(MPI_name, ...)\n", list, NR > "/dev/stderr"; bad = 1; next
    }
    name = $0; sub(/^[^(]*\(/, "", name); sub(/,.*/, "", name)
    f = tolower(name)
    if (f in line) { printf "%s:%d: %s again (line %d)\n", list, NR, name, line[f] > "/dev/stderr"; bad = 1 }
    line[f] = NR; text[f] = $0
    if (!(f in made)) {
      printf "%s:%d: %s: add src/mpiwrap/gen/%s.cc to mpiwrap_generated in src/Makefile.mk\n", list, NR, name, f > "/dev/stderr"
      bad = 1
    }
  }
  END {
    for (f in made)
      if (!(f in line)) { printf "%s: no line for %s.cc (src/Makefile.mk, mpiwrap_generated)\n", list, f > "/dev/stderr"; bad = 1 }
    if (!(want in line)) { printf "%s: no line for %s\n", list, want > "/dev/stderr"; bad = 1 }
    if (bad) exit 1
    print "// Made by src/mpiwrap/gen-call.sh from calls.def: one wrapper, so one object (mpiwrap/wrap.h)."
    print "#include \"mpiwrap/shapes.h\""
    print ""
    print "using namespace armcix;           // NOLINT(google-build-using-namespace)"
    print "using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)"
    print ""
    printf "#line %d \"%s\"\n", line[want], list
    print text[want]
  }' "$list"
