#!/usr/bin/env bash
# Installs the Debian packages armci-x needs to build, test and benchmark (idempotent: does nothing when
# everything is present).  Uses sudo when not run as root.
set -euo pipefail
pkgs=(build-essential mpich libmpich-dev autoconf automake libtool pkg-config googletest libgtest-dev valgrind
      libglobalarrays-dev libarmci-mpi-dev libscalapack-mpich-dev gfortran
      libopenmpi-dev openmpi-bin libscalapack-openmpi-dev gdb)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
