#!/usr/bin/env bash
# Runs a command inside a Debian 13 (trixie) root made from Debian's archive, with this repository at /armcix.
#
#   tools/debian13-root.sh [COMMAND [ARGS...]]     (default: an interactive bash; the working directory is /armcix)
#   tools/debian13-root.sh --unmount               unmounts whatever is left mounted under the root (after a kill -9)
#
#   ARMCIX_DEBIAN13_ROOT   the root (default /var/cache/armcix/debian13; keep it outside the repository)
#   ARMCIX_DEBIAN_MIRROR   the archive debootstrap reads (default: debootstrap's own, Debian's archive)
#
# The root is a cache: when it is missing it is made with 'debootstrap --variant=minbase trixie' in ROOT.tmp
# and renamed to ROOT once complete (a failed or interrupted run never leaves a half-made ROOT); packages
# installed inside (tools/install-deps.sh) stay there for the next run.  Needs root.
#
# Mounts, all made in a private mount namespace of this run (unshare --mount), so they cannot leak into the
# host's, and undone by a trap on exit too: ROOT bound onto itself (so ROOT is a mount point: 'ip netns exec',
# which the simulated hosts and fault tests use, runs 'mount --make-rslave /' and fails in a chroot whose / is
# not one), /proc, /sys, /dev, /dev/pts, /dev/shm, and the repository (the clone may live anywhere; inside it is
# always /armcix).  A mount that already exists is left alone (and not unmounted).
#
# Environment passed inside: TERM, and every ARMCI_*, ARMCIX_*, OPENMPI_*, MPIR_CVAR_*, UCX_*, OMPI_*,
# ASAN_*, UBSAN_* variable; everything else is reset (PATH, HOME=/root, LANG=C.UTF-8).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
root="${ARMCIX_DEBIAN13_ROOT:-/var/cache/armcix/debian13}"
mirror="${ARMCIX_DEBIAN_MIRROR:-}"  # empty: debootstrap's default (Debian's archive)
inside_repo=/armcix
[ "$(id -u)" -eq 0 ] || { echo "debian13-root: needs root (debootstrap, mount, chroot)" >&2; exit 2; }

# Every mount point under ROOT, deepest first (the order to unmount in).
mounts_under() {
  awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | tac
}
unmount_all() {
  local m
  for m in $(mounts_under); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}
if [ "${1:-}" = --unmount ]; then
  unmount_all
  left="$(mounts_under)"
  [ -z "$left" ] || { echo "debian13-root: still mounted: $left" >&2; exit 1; }
  exit 0
fi

make_root() {  # debootstrap into ROOT.tmp, then rename; serialised by a lock so that two runs cannot race
  mkdir -p "$(dirname "$root")"
  exec 9>"$root.lock"
  flock 9
  [ -d "$root" ] && return 0
  command -v debootstrap >/dev/null || {
    echo "debian13-root: installing debootstrap"
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
  } || { echo "debian13-root: cannot install debootstrap" >&2; exit 1; }
  local tmp="$root.tmp"
  root="$tmp" unmount_all
  rm -rf "$tmp"
  echo "debian13-root: making $root with debootstrap (minbase trixie from ${mirror:-the default archive}, ~1-3 min)"
  if ! debootstrap --variant=minbase trixie "$tmp" ${mirror:+"$mirror"} >"$root.debootstrap.log" 2>&1; then
    tail -n 20 "$root.debootstrap.log" >&2
    echo "debian13-root: debootstrap failed (whole log: $root.debootstrap.log)" >&2
    root="$tmp" unmount_all
    exit 1
  fi
  mv "$tmp" "$root"
}
[ -d "$root" ] || make_root
# Made by an earlier version of this script or by hand: the few files a chroot needs.
[ -s "$root/etc/hosts" ] || cp /etc/hosts "$root/etc/hosts"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# No daemons started by package installs inside the root.
[ -x "$root/usr/sbin/policy-rc.d" ] || { printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"; }

if [ "${ARMCIX_DEBIAN13_ROOT_NS:-}" != "$root" ]; then
  # Into a private mount namespace; this script runs again there and does the mounts.
  exec env ARMCIX_DEBIAN13_ROOT_NS="$root" unshare --mount --propagation private "$0" "$@"
fi

made=()
cleanup() {
  local i
  for ((i = ${#made[@]} - 1; i >= 0; i--)); do umount "${made[$i]}" 2>/dev/null || umount -l "${made[$i]}" 2>/dev/null || true; done
  # What the command mounted inside (ip netns add: /run/netns and one per namespace) goes too.
  unmount_all
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
bind() {  # bind SOURCE TARGET [mount options...]: unless TARGET is a mount point already
  local src="$1" dst="$2"; shift 2
  mkdir -p "$dst"
  mountpoint -q "$dst" && return 0
  mount "$@" --bind "$src" "$dst"
  made+=("$dst")
}
bind "$root" "$root"
if ! mountpoint -q "$root/proc"; then mount -t proc proc "$root/proc"; made+=("$root/proc"); fi
bind /sys "$root/sys"
bind /dev "$root/dev"
bind /dev/pts "$root/dev/pts"
bind /dev/shm "$root/dev/shm"
bind "$repo" "$root$inside_repo"

envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}")
while IFS= read -r v; do envs+=("$v"); done < <(env | grep -E '^(ARMCI|ARMCIX|OPENMPI|MPIR_CVAR|UCX|OMPI|ASAN|UBSAN)_[A-Za-z0-9_]*=' |
  grep -v '^ARMCIX_DEBIAN13_ROOT')
[ $# -gt 0 ] || set -- bash -l
# Not exec: the trap must run after the command.
set +e
chroot "$root" /usr/bin/env -i "${envs[@]}" /bin/bash -c 'cd "$0" && exec "$@"' "$inside_repo" "$@"
status=$?
exit $status
