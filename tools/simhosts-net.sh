# shellcheck shell=bash
# Simulated hosts' network, sourced by tools/simhosts.sh and tools/slurm-hosts.sh (not run by itself):
# H network namespaces P-h0..P-h(H-1), each with a veth pair (Pv0, ... in the root namespace, eth0 inside)
# attached to a bridge Pbr, host i at 10.A.B.(10+i)/24.  Only private addresses, only in what we create.
#
#   simnet_up PREFIX SUBNET HOSTS [BRIDGE_ADDR]   make them (exits 2 on failure, after simnet_down);
#                                                 BRIDGE_ADDR (e.g. 10.A.B.1) also gives the bridge an
#                                                 address, so that the root namespace reaches the hosts
#   simnet_down                                   kill what runs in them and remove them (idempotent)
#   simnet_ns I / simnet_addr I / simnet_veth I   names and address of host I
# simnet_up sets SIMNET_ADDRS (the hosts' addresses, space-separated).  The caller installs the traps
# (simnet_down on EXIT, INT, TERM, HUP).

simnet_prefix="" simnet_subnet="" simnet_bridge="" simnet_made_bridge=0 simnet_made_ns=() simnet_made_veths=()
SIMNET_ADDRS=""

simnet_ns() { echo "${simnet_prefix}-h$1"; }
simnet_addr() { echo "10.$simnet_subnet.$((10 + $1))"; }
simnet_veth() { echo "${simnet_prefix}v$1"; }

simnet_down() {
  local ns veth
  for ns in "${simnet_made_ns[@]+"${simnet_made_ns[@]}"}"; do
    # Whatever still runs in the namespace (ranks, proxies, daemons) goes first, or the namespace outlives us.
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
  done
  # Delete the veth pairs by name before the namespaces: 'ip link del' frees the name when it returns,
  # while 'ip netns del' destroys the namespace (and with it both veth ends) later, in the kernel's
  # own time, so a next run that reuses a name could find it still taken ("RTNETLINK answers: File exists").
  for veth in "${simnet_made_veths[@]+"${simnet_made_veths[@]}"}"; do ip link del "$veth" 2>/dev/null; done
  for ns in "${simnet_made_ns[@]+"${simnet_made_ns[@]}"}"; do ip netns del "$ns" 2>/dev/null; done
  [ "$simnet_made_bridge" = 1 ] && ip link del "$simnet_bridge" 2>/dev/null
  simnet_made_ns=() simnet_made_veths=() simnet_made_bridge=0
}

simnet_failed() { echo "${SIMNET_WHO:-simhosts}: set-up failed: $*" >&2; simnet_down; exit 2; }

# A name may still be held by a namespace that an earlier run deleted and the kernel has not yet destroyed
# (namespace teardown is asynchronous): wait for it a little, then name the leftover.
simnet_wait_name_free() {
  local _
  for _ in $(seq 50); do ip link show "$1" >/dev/null 2>&1 || return 0; sleep 0.1; done
  simnet_failed "interface $1 already exists (left over from another run? 'ip link del $1' removes it)"
}

simnet_up() {
  local hosts="$3" bridge_addr="${4:-}" i ns veth addr _
  simnet_prefix="$1" simnet_subnet="$2" simnet_bridge="$1br" SIMNET_ADDRS=""
  simnet_wait_name_free "$simnet_bridge"
  ip link add "$simnet_bridge" type bridge || simnet_failed "ip link add $simnet_bridge type bridge"
  simnet_made_bridge=1
  ip link set "$simnet_bridge" up || simnet_failed "ip link set $simnet_bridge up"
  if [ -n "$bridge_addr" ]; then
    ip addr add "$bridge_addr/24" dev "$simnet_bridge" || simnet_failed "address $bridge_addr on $simnet_bridge"
  fi
  for ((i = 0; i < hosts; i++)); do
    ns="$(simnet_ns "$i")" veth="$(simnet_veth "$i")" addr="$(simnet_addr "$i")"
    ip netns add "$ns" || simnet_failed "ip netns add $ns"
    simnet_made_ns+=("$ns")
    simnet_wait_name_free "$veth"
    ip link add "$veth" type veth peer name eth0 netns "$ns" || simnet_failed "veth $veth"
    simnet_made_veths+=("$veth")
    ip link set "$veth" master "$simnet_bridge" up || simnet_failed "attach $veth"
    ip -n "$ns" addr add "$addr/24" dev eth0 || simnet_failed "address $addr"
    ip -n "$ns" link set eth0 up || simnet_failed "eth0 up in $ns"
    ip -n "$ns" link set lo up || simnet_failed "lo up in $ns"
    SIMNET_ADDRS+="${SIMNET_ADDRS:+ }$addr"
  done
  # Wait until every bridge port forwards.  (This used to ping each host from host 0, but there is no ping
  # here (iputils-ping is not installed): every run waited out its 50 tries, 5-7 s per host.)
  for veth in "${simnet_made_veths[@]}"; do
    for _ in $(seq 50); do ip -d link show "$veth" 2>/dev/null | grep 'state forwarding' >/dev/null && break; sleep 0.1; done
  done
}
