#!/bin/sh
# Regenerates configure and Makefile.in.
set -e
cd "$(dirname "$0")"
autoreconf -fi
