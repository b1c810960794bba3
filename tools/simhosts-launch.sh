#!/usr/bin/env bash
# Hydra's "ssh" for tools/simhosts.sh: Hydra runs it as  <this> [ssh options] HOST COMMAND...  and it runs
# COMMAND inside HOST's network namespace.  SIMHOSTS_MAP="addr=namespace addr=namespace ..." (set by
# simhosts.sh) says which namespace is which host.
set -u
while [ $# -gt 0 ] && [[ "$1" == -* ]]; do shift; done  # ssh-style options such as -x
host="${1:-}"
[ $# -gt 0 ] && shift
ns=""
for pair in ${SIMHOSTS_MAP:-}; do
  if [ "${pair%%=*}" = "$host" ]; then ns="${pair#*=}"; fi
done
if [ -z "$ns" ]; then
  echo "simhosts-launch: host '$host' is not in SIMHOSTS_MAP ('${SIMHOSTS_MAP:-}')" >&2
  exit 255
fi
if [ "${SIMHOSTS_UTS:-0}" = 1 ]; then
  # Its own host name too (a UTS namespace named like the network namespace): Open MPI names its shared-memory
  # files after the host name, so simulated hosts with one name would map each other's files.
  exec ip netns exec "$ns" unshare --uts bash -c 'hostname "$1" && exec bash -c "$2"' simhost "$ns" "$*"
fi
exec ip netns exec "$ns" bash -c "$*"
