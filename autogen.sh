#!/bin/sh
# Regenerates configure and Makefile.in.  libtoolize goes first, so that aclocal always finds libtool's macros
# in m4/ (autoreconf alone ran aclocal before libtoolize had copied them, and whether the generated
# Makefile.in then listed m4/libtool.m4 varied from clone to clone: the release tarball's sha256 with it).
set -e
cd "$(dirname "$0")"
libtoolize --copy --force --quiet
autoreconf -fi
