#!/usr/bin/env bash
# Simulated hosts on one machine: runs an MPI program with MPICH's Hydra (or Open MPI's mpirun, --mpi openmpi)
# on H "hosts", each a Linux network namespace with its own address, so that MPI itself sees H nodes (one Hydra
# proxy or Open MPI daemon per host) and the traffic between hosts is TCP over a bridge.  Everything it creates is removed again on exit, also after a failure,
# a timeout or a signal.
#
#   tools/simhosts.sh [options] -n NP PROGRAM [ARGS...]      (mpiexec-like, usable as MPIEXEC)
#     --hosts H            number of hosts (default 2); NP ranks are placed in blocks of NP/H per host
#                          (NP must be a multiple of H)
#     --prefix P           name prefix of the namespaces (P-h0, P-h1, ...), bridge (Pbr) and veths (Pv0, ...);
#                          default "ax" + PID, so that two runs cannot collide (at most 8 characters)
#     --subnet A.B         addresses 10.A.B.10+i/24 (default derived from the PID); used only inside the
#                          namespaces: the bridge in the root namespace has no address
#     --timeout S          kill the job after S seconds (default 300); exit status 124 then
#     --link-down I:S      S seconds after the start take host I's link down (ip link set <veth> down):
#                          a network failure in the middle of a run (fault tests)
#     --net-timeout        a dead link ends the job within about 20 s: in every simulated host TCP gives up
#                          retransmitting after 5 tries (net.ipv4.tcp_retries2=5, ~13 s; Linux default 15,
#                          ~15 min) and UCX probes idle connections (UCX_TCP_KEEPIDLE=4s, KEEPINTVL=2s,
#                          KEEPCNT=3), so UCX reports the connection failed and MPICH aborts the job
#     --env VAR=value      set VAR for the job (may repeat); the caller's environment is passed on too
#     --mpi mpich|openmpi  which MPI's launcher (default $SIMHOSTS_MPI, else mpich); the program must be built
#                          for that MPI (tests/check.sh passes the build's)
#     --own-names          every host gets its own host name (P-h0, ...: a UTS namespace, as always with Open
#                          MPI) and an /etc/hosts of its own that maps the hosts' names to their addresses
#                          (/etc/netns/P-hI/hosts, which ip netns exec binds over /etc/hosts), so that
#                          gethostid() differs between hosts: GA's ComEx ports (MPI-PR, MPI-TS, MPI3) tell nodes
#                          apart by gethostid() alone and otherwise take all hosts for one node
#
# UCX_TLS: tcp,sm,self unless the caller sets it.  MPI sees separate nodes and connects them over TCP, but
# UCX's shared-memory transports reach any process on the same kernel, network namespace or not, so with
# sm allowed the bytes between simulated hosts move through shared memory.  UCX_TLS=tcp,self makes them
# cross TCP (what benchmarks/compare.sh --hosts uses), at the price of MPICH 4.0.2 + UCX 1.13 hanging in
# MPI_Finalize in 2-4 of 10 runs here (UCX issue 8738, doc/user-guide.md; tcp,sm,self: 0 of 10).
# With --mpi openmpi the default is tcp,self: osc ucx's one-sided traffic between simulated hosts over the
# shared-memory transports, a path real hosts do not have, hung armci-x's MCS mutex on Open MPI 5.0.7
# (test_mutex_rmw, 2 x 2) and delivered wrong small puts under the progress thread on Open MPI 4.1.4; over
# tcp,self both pass (doc/user-guide.md, "Known MPI problems").
#
# Needs root (ip netns).  Not root: prints "simhosts: SKIP ..." and exits 77 (check.sh counts it skipped).
# Exit status: the job's (mpiexec's), 124 on timeout, 77 skip, 2 usage or set-up failure.
#
# How: Hydra is started inside host 0's namespace as
#   mpiexec.mpich -hosts 10.A.B.10:K,10.A.B.11:K,... -launcher ssh -launcher-exec tools/simhosts-launch.sh
#                 -iface eth0 -n NP PROGRAM ARGS
# and Hydra runs the launcher as "<launcher> [ssh options] HOST COMMAND...": simhosts-launch.sh maps HOST to
# its namespace (SIMHOSTS_MAP) and runs COMMAND there with ip netns exec.  Open MPI's mpirun runs the same
# script as its ssh (plm_rsh_agent) to start one orted per other host:
#   mpiexec.openmpi --allow-run-as-root --oversubscribe --host 10.A.B.10:K,... --mca plm_rsh_agent
#                   tools/simhosts-launch.sh --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include eth0
#                   --mca btl_tcp_if_include eth0 -n NP PROGRAM ARGS
# (run-as-root and oversubscribe as everywhere here; the daemons talk over eth0, the namespace's only
# interface besides lo).  Unless the caller sets OMPI_MCA_pml or OMPI_MCA_osc, the ranks use UCX (pml ucx,
# osc ucx between hosts; UCX_TLS as for MPICH), because Debian's Open MPI has no one-sided component that
# reaches another host over TCP: /etc/openmpi/openmpi-mca-params.conf disables osc ucx and pt2pt, and
# osc rdma needs an RDMA network, so every window across hosts fails with MPI_ERR_WIN.  Measured 2026-11-24
# (tests/multinode/lines.txt at 2 hosts x 2 ranks, doc/user-guide.md "Known MPI problems"): UCX passed 17
# of 18 lines, osc pt2pt (OMPI_MCA_osc=^ucx, pml ob1) hung in two (mn-nb, mn-classic-armci).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
hosts=2 prefix="ax$$" subnet="" timeout_s=300 np="" link_down="" net_timeout=0 envs=() mpi="${SIMHOSTS_MPI:-mpich}"
own_names=0
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --subnet) subnet="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --link-down) link_down="$2"; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --net-timeout) net_timeout=1; shift ;;
    --own-names) own_names=1; shift ;;
    --mpi) mpi="$2"; shift 2 ;;
    -n|-np) np="$2"; shift 2 ;;
    --) shift; break ;;
    -*) echo "simhosts: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ] || [ -z "$np" ]; then
  echo "usage: tools/simhosts.sh [--hosts H] [--prefix P] [--subnet A.B] [--timeout S] [--link-down I:S] [--mpi mpich|openmpi] [--own-names] -n NP PROGRAM [ARGS...]" >&2
  exit 2
fi
case "$mpi" in
  mpich|openmpi) ;;
  *) echo "simhosts: --mpi must be mpich or openmpi, not '$mpi'" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
  echo "simhosts: SKIP: needs root for network namespaces (ip netns); not running $1" >&2
  exit 77
fi
if ! [[ "$hosts" =~ ^[1-9][0-9]?$ ]] || ! [[ "$np" =~ ^[1-9][0-9]*$ ]] || [ $((np % hosts)) -ne 0 ]; then
  echo "simhosts: -n $np is not a positive multiple of --hosts $hosts" >&2
  exit 2
fi
if ! [[ "$prefix" =~ ^[a-z][a-z0-9]{0,7}$ ]]; then
  echo "simhosts: --prefix '$prefix' must be 1-8 lower-case letters/digits starting with a letter" >&2
  exit 2
fi
[ -n "$subnet" ] || subnet="$(( ($$ / 250) % 200 + 20 )).$(( $$ % 250 + 1 ))"
if ! [[ "$subnet" =~ ^[0-9]{1,3}\.[0-9]{1,3}$ ]]; then echo "simhosts: bad --subnet $subnet" >&2; exit 2; fi
per_host=$((np / hosts))
mpiexec="${SIMHOSTS_MPIEXEC:-mpiexec.$mpi}"

# The namespaces, veths and bridge: tools/simhosts-net.sh (shared with tools/slurm-hosts.sh).
# shellcheck source=tools/simhosts-net.sh
. "$here/simhosts-net.sh"
job_pid="" downer_pid=""
etc_made=()  # /etc/netns/<namespace> directories made for --own-names
teardown() {
  [ -n "$downer_pid" ] && kill "$downer_pid" 2>/dev/null
  [ -n "$job_pid" ] && kill -KILL "$job_pid" 2>/dev/null
  simnet_down
  local d
  for d in "${etc_made[@]+"${etc_made[@]}"}"; do rm -f "$d/hosts"; rmdir "$d" 2>/dev/null; done
  etc_made=()
}
trap 'teardown' EXIT
trap 'teardown; exit 130' INT
trap 'teardown; exit 143' TERM HUP

simnet_up "$prefix" "$subnet" "$hosts"
if [ "$net_timeout" = 1 ]; then  # per network namespace: affects only this simulated host
  for ((i = 0; i < hosts; i++)); do
    ip netns exec "$(simnet_ns "$i")" sysctl -qw net.ipv4.tcp_retries2=5 || simnet_failed "tcp_retries2 in $(simnet_ns "$i")"
  done
fi
if [ "$own_names" = 1 ]; then
  # One /etc/hosts per host: localhost and every simulated host's name and address.  ip netns exec binds the
  # files of /etc/netns/<namespace>/ over /etc/ for whatever it runs (the launcher and the ranks).
  names=""
  for ((i = 0; i < hosts; i++)); do names+="$(simnet_addr "$i") $(simnet_ns "$i")"$'\n'; done
  for ((i = 0; i < hosts; i++)); do
    d="/etc/netns/$(simnet_ns "$i")"
    [ ! -e "$d" ] || simnet_failed "$d exists already (left over from another run? remove it)"
    mkdir -p "$d" || simnet_failed "mkdir $d"
    etc_made+=("$d")
    printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n%s' "$names" >"$d/hosts" ||
      simnet_failed "$d/hosts"
  done
fi
host_list="" map=""
for ((i = 0; i < hosts; i++)); do
  addr="$(simnet_addr "$i")"
  host_list+="${host_list:+,}$addr:$per_host"
  map+="${map:+ }$addr=$(simnet_ns "$i")"
done

job_env=("SIMHOSTS_MAP=$map")
if [ -z "${UCX_TLS:-}" ]; then
  if [ "$mpi" = openmpi ]; then job_env+=("UCX_TLS=tcp,self"); else job_env+=("UCX_TLS=tcp,sm,self"); fi
fi
if [ "$mpi" = openmpi ] && [ -z "${OMPI_MCA_pml:-}" ] && [ -z "${OMPI_MCA_osc:-}" ]; then
  # pml_ucx_tls/devices=any: Open MPI otherwise lets pml ucx run only on InfiniBand devices.
  job_env+=(OMPI_MCA_pml=ucx "OMPI_MCA_osc=^pt2pt" OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any)
fi
[ "$net_timeout" = 1 ] && job_env+=(UCX_TCP_KEEPIDLE=4s UCX_TCP_KEEPINTVL=2s UCX_TCP_KEEPCNT=3)
job_env+=("${envs[@]+"${envs[@]}"}")
if [ -n "$link_down" ]; then
  down_host="${link_down%%:*}" down_after="${link_down#*:}"
  ( sleep "$down_after"; ip link set "${prefix}v$down_host" down && echo "simhosts: link of host $down_host (${prefix}v$down_host) down after ${down_after}s" >&2 ) &
  downer_pid=$!
fi
if [ "$mpi" = openmpi ]; then
  # --map-by ppr:K:node: K ranks per host, in blocks.  Without it Open MPI 5's mapper (PRRTE), told it may
  # oversubscribe, put all NP ranks on host 0 (Open MPI 4.1 filled each host's K slots in turn).
  launch=("$mpiexec" --allow-run-as-root --oversubscribe --host "$host_list" --map-by "ppr:$per_host:node"
          --mca plm_rsh_agent "$here/simhosts-launch.sh" --mca plm_rsh_no_tree_spawn 1
          --mca oob_tcp_if_include eth0 --mca btl_tcp_if_include eth0 -n "$np" "$@")
else
  launch=("$mpiexec" -hosts "$host_list" -launcher ssh -launcher-exec "$here/simhosts-launch.sh" -iface eth0
          -n "$np" "$@")
fi
if [ "$mpi" = openmpi ] || [ "$own_names" = 1 ]; then
  # Every simulated host gets its own host name (UTS namespace; simhosts-launch.sh does the same for the
  # others): Open MPI names its shared-memory files (btl vader, osc rdma) after the host name and so do we
  # (the window gate), and simulated hosts share /dev/shm.  With one name for all, ranks of different hosts
  # mapped each other's vader segments (unlink(2) /dev/shm/vader_segment...) and saw wrong node sizes.
  job_env+=(SIMHOSTS_UTS=1)
  launch=(unshare --uts bash -c 'hostname "$0" && exec "$@"' "${prefix}-h0" "${launch[@]}")
fi
env "${job_env[@]}" timeout --kill-after=5 "$timeout_s" ip netns exec "${prefix}-h0" "${launch[@]}" < /dev/null &
job_pid=$!
# Hydra's mpiexec learns that a proxy ended from the proxy's TCP connection.  When a host's link is down
# (--link-down) the ranks there end (ARMCI_WATCHDOG_S) and so does their proxy, but the connection never
# closes on mpiexec's side, which then waits for it forever.  So: once every rank and proxy in every
# simulated host has been gone for 5 s while mpiexec still runs, the job is over; end mpiexec, exit 1.
launcher_name="$(basename "$mpiexec")"
seen_job=0 idle=0 orphaned=0
while kill -0 "$job_pid" 2>/dev/null; do
  sleep 1
  others=0
  for ((i = 0; i < hosts; i++)); do
    for p in $(ip netns pids "${prefix}-h$i" 2>/dev/null); do
      [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "${launcher_name:0:15}" ] || others=$((others + 1))
    done
  done
  if [ "$others" -gt 0 ]; then seen_job=1 idle=0; elif [ "$seen_job" = 1 ]; then idle=$((idle + 1)); fi
  if [ "$idle" -ge 5 ]; then
    echo "simhosts: every rank and proxy has ended but $launcher_name still waits (a host is unreachable): ending it" >&2
    orphaned=1
    for ((i = 0; i < hosts; i++)); do ip netns pids "${prefix}-h$i" 2>/dev/null | xargs -r kill -KILL 2>/dev/null; done
    break
  fi
done
wait "$job_pid"
rc=$?
job_pid=""
[ "$orphaned" = 1 ] && rc=1
[ $rc -eq 124 ] && echo "simhosts: TIMEOUT after ${timeout_s}s ($np ranks on $hosts hosts)" >&2
exit $rc
