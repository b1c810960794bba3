#!/usr/bin/env bash
# Installs the Debian packages armci-x needs to build, test and benchmark (idempotent: does nothing when
# everything is present).  Uses sudo when not run as root.  The release comes from /etc/os-release:
# Debian 12 (bookworm) and 13 (trixie) are known; another Debian-like system gets the common list and a note.
set -euo pipefail
# Both releases: the build (autotools, MPICH, Open MPI, googletest), Debian's GA and ARMCI-MPI (the first
# user and the baseline), ScaLAPACK for GA's link line, valgrind (memcheck stage), gdb (tools/dump-stacks.sh
# prints a hung test's stacks), iproute2 and procps (simulated hosts: ip netns, sysctl, ps), cmake (the
# find_package(armci) consumer test, tests/link/cmake_consumer.sh).
pkgs=(build-essential mpich libmpich-dev autoconf automake libtool pkg-config cmake googletest libgtest-dev valgrind
      libglobalarrays-dev libarmci-mpi-dev libscalapack-mpich-dev gfortran
      libopenmpi-dev openmpi-bin libscalapack-openmpi-dev gdb iproute2 procps)
release=unknown
if [ -r /etc/os-release ]; then
  release="$(. /etc/os-release && echo "${ID:-}:${VERSION_CODENAME:-}")"
fi
case "$release" in
  # libscalapack-*-dev pulls liblapack-dev and libblas-dev in.  Slurm and munge: tools/slurm-hosts.sh and the
  # Slurm stage (tests/multinode/slurm.sh; slurm-wlm 22.05 brings slurmctld, slurmd and the client commands,
  # its mpi/pmi2 and mpi/pmix plugins; Debian 13's is 24.11, run there with cgroups disabled).
  debian:bookworm) pkgs+=(slurm-wlm munge) ;;
  # From trixie on libscalapack-*-dev no longer depends on liblapack-dev / libblas-dev, and GA's link line
  # (examples/ga_demo, the GA tests) needs -llapack -lblas: "ld: cannot find -llapack" without them.
  debian:trixie) pkgs+=(liblapack-dev libblas-dev slurm-wlm munge) ;;
  *) echo "install-deps: $release is not Debian 12 or 13; installing the common list plus LAPACK/BLAS" >&2
     pkgs+=(liblapack-dev libblas-dev) ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps ($release): installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if ! $SUDO apt-get update -q; then
  echo "install-deps: apt-get update failed (above); cannot install ${missing[*]}" >&2
  exit 1
fi
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  echo "install-deps: apt-get install failed (above) for: ${missing[*]}" >&2
  exit 1
fi
