#!/usr/bin/env bash
# A Slurm cluster across simulated hosts (issue 52): brings up slurmctld and one slurmd per simulated host
# (the network namespaces of tools/simhosts.sh, via tools/simhosts-net.sh), runs COMMAND where srun, sbatch,
# squeue and scancel reach that cluster, and tears everything down again (also after a failure, a timeout
# or a signal): jobs cancelled, daemons and whatever runs in the namespaces killed, namespaces, links and
# temporary files removed.
#
#   tools/slurm-hosts.sh [options] COMMAND [ARGS...]
#     --hosts N        simulated hosts, one slurmd each (default 2); nodes P-h0 .. P-h(N-1), partition "sim"
#     --cpus C         CPUs each node claims (default 8): more than the machine has, so that K ranks per node
#                      plus progress ranks fit on 2 cores (SlurmdParameters=config_overrides)
#     --prefix P       name prefix of the namespaces, bridge and veths as in simhosts.sh (default "sl" + PID)
#     --subnet A.B     hosts at 10.A.B.10+i/24, the bridge (slurmctld, COMMAND) at 10.A.B.1 (default: from PID)
#     --timeout S      the whole run, set-up and COMMAND, is killed after S seconds (default 600): exit 124
#     --keep-logs DIR  copy the daemons' logs and slurm.conf to DIR before removing them
#
# COMMAND runs in the root namespace (it reaches the nodes through the bridge's address) with SLURM_CONF
# pointing to the generated slurm.conf and SLURM_HOSTS_NODES ("P-h0,P-h1"), SLURM_HOSTS_DIR (a scratch
# directory on the shared file system, removed afterwards) and SLURM_HOSTS_BRIDGE (the bridge's interface,
# for launchers that must be told which interface reaches the nodes) exported.  Jobs run as root in their node's
# network namespace, its own UTS namespace (host name = node name: Open MPI names its shared-memory files
# after the host name, and simulated hosts share /dev/shm) and its own TmpFS (below).
#
# How: one munge daemon, in the root namespace, with a fresh key and its own socket in the temporary
# directory (AuthInfo=socket=...): slurmd inside a network namespace still reaches it, a unix socket being
# a file, which network namespaces do not isolate.  slurmctld runs in the root namespace in a UTS namespace
# named like its SlurmctldHost (slurmctld checks that its host name is one), each slurmd in its host's
# namespaces with -N NODE.  No cgroups (proctrack/linuxproc, task/none), select/cons_tres with
# OverSubscribe=FORCE, MpiDefault=pmi2, short timeouts.
#
# Needs root and Slurm (slurmctld, slurmd, srun) and munge: otherwise prints "slurm-hosts: SKIP ..." and
# exits 77.  Run with Debian 12's Slurm 22.05 and Debian 13's 24.11 (tools/debian13-root.sh).  Exit status: COMMAND's, 124 on timeout, 77 skip, 2 usage or set-up failure.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
hosts=2 cpus=8 prefix="sl$(($$ % 100000))" subnet="" timeout_s=600 keep_logs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="$2"; shift 2 ;;
    --cpus) cpus="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --subnet) subnet="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --keep-logs) keep_logs="$2"; shift 2 ;;
    --) shift; break ;;
    -*) echo "slurm-hosts: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ]; then
  echo "usage: tools/slurm-hosts.sh [--hosts N] [--cpus C] [--prefix P] [--subnet A.B] [--timeout S] [--keep-logs DIR] COMMAND [ARGS...]" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "slurm-hosts: SKIP: needs root for network namespaces and the Slurm daemons; not running $1" >&2
  exit 77
fi
for tool in slurmctld slurmd srun munged; do
  if ! command -v "$tool" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$tool" ]; then
    echo "slurm-hosts: SKIP: $tool is not installed (tools/install-deps.sh installs slurm-wlm and munge)" >&2
    exit 77
  fi
done
if ! [[ "$hosts" =~ ^[1-9][0-9]?$ ]] || ! [[ "$cpus" =~ ^[1-9][0-9]*$ ]] || ! [[ "$timeout_s" =~ ^[1-9][0-9]*$ ]]; then
  echo "slurm-hosts: --hosts, --cpus and --timeout take positive numbers" >&2; exit 2
fi
if ! [[ "$prefix" =~ ^[a-z][a-z0-9]{0,7}$ ]]; then
  echo "slurm-hosts: --prefix '$prefix' must be 1-8 lower-case letters/digits starting with a letter" >&2; exit 2
fi
[ -n "$subnet" ] || subnet="$(( ($$ / 250) % 200 + 20 )).$(( $$ % 250 + 1 ))"
if ! [[ "$subnet" =~ ^[0-9]{1,3}\.[0-9]{1,3}$ ]]; then echo "slurm-hosts: bad --subnet $subnet" >&2; exit 2; fi
PATH="$PATH:/usr/sbin:/sbin"
SIMNET_WHO=slurm-hosts
# shellcheck source=tools/simhosts-net.sh
. "$here/simhosts-net.sh"

# The global timeout: a watcher that TERMs this script (whose trap tears down) and, should that hang, KILLs.
main_pid=$$ timed_out_flag=""
tmp="$(mktemp -d /tmp/slurm-hosts.XXXXXX)" || { echo "slurm-hosts: mktemp failed" >&2; exit 2; }
timed_out_flag="$tmp/timed-out"
# Its output goes nowhere: a sleep holding our standard output open would keep a pipe reading it open
# (the TERM trap says that the time ran out).
( sleep "$timeout_s"; touch "$timed_out_flag"; kill -TERM "$main_pid"; sleep 30; kill -KILL "$main_pid" ) >/dev/null 2>&1 &
watcher_pid=$!

daemon_pids=() cmd_pid="" torn=0
teardown() {
  [ "$torn" = 1 ] && return
  torn=1
  [ -n "$cmd_pid" ] && kill -TERM "$cmd_pid" 2>/dev/null
  if [ -f "$tmp/slurm.conf" ] && [ "${#daemon_pids[@]}" -gt 0 ]; then
    # Jobs first, so that slurmd ends their steps (bounded: slurmctld may be gone already).
    SLURM_CONF="$tmp/slurm.conf" timeout 10 scancel --quiet --partition=sim 2>/dev/null
    for _ in $(seq 20); do
      [ -z "$(SLURM_CONF="$tmp/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.25
    done
  fi
  [ -n "$cmd_pid" ] && kill -KILL "$cmd_pid" 2>/dev/null
  local p
  for p in "${daemon_pids[@]+"${daemon_pids[@]}"}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 20); do
    local alive=0
    for p in "${daemon_pids[@]+"${daemon_pids[@]}"}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.25
  done
  for p in "${daemon_pids[@]+"${daemon_pids[@]}"}"; do kill -KILL "$p" 2>/dev/null; done
  # Daemons that forked away from the PIDs we hold (slurmstepd) live in the namespaces: simnet_down kills them.
  simnet_down
  if [ -n "$keep_logs" ]; then mkdir -p "$keep_logs" && cp "$tmp"/*.log "$tmp/slurm.conf" "$keep_logs"/ 2>/dev/null; fi
  # The watcher and its sleep (by their parent's PID: killing the subshell alone leaves the sleep running).
  pkill -P "$watcher_pid" 2>/dev/null; kill "$watcher_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap 'rc=$?; teardown; exit $rc' EXIT
trap 'if [ -f "$timed_out_flag" ]; then echo "slurm-hosts: TIMEOUT after ${timeout_s}s: tearing down" >&2; teardown; exit 124; fi; teardown; exit 143' TERM HUP
trap 'teardown; exit 130' INT
fail() { echo "slurm-hosts: set-up failed: $*" >&2; for f in "$tmp"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done; exit 2; }

ctl_addr="10.$subnet.1"
simnet_up "$prefix" "$subnet" "$hosts" "$ctl_addr"

# munge: a fresh key for this cluster, our own socket, pid and seed files.
# (munged wants its socket's directory searchable by all, its key readable by root only.)
mkdir -p "$tmp/munge" "$tmp/munge-key" "$tmp/state" "$tmp/shared" "$tmp/nodetmp" && chmod 755 "$tmp" "$tmp/munge" && chmod 700 "$tmp/munge-key"
head -c 1024 /dev/urandom > "$tmp/munge-key/munge.key" && chmod 400 "$tmp/munge-key/munge.key"
munge_sock="$tmp/munge/munge.socket"
munged --force --key-file="$tmp/munge-key/munge.key" --socket="$munge_sock" --pid-file="$tmp/munge/munged.pid" \
       --seed-file="$tmp/munge/munge.seed" --log-file="$tmp/munged.log" || fail "munged"
[ -s "$tmp/munge/munged.pid" ] && daemon_pids+=("$(cat "$tmp/munge/munged.pid")")

ctl_name="${prefix}-ctl"
# Ports from the PID as well: slurmctld listens in the root namespace, where another run may have its own.
ctl_port=$(( 20000 + ($$ % 9000) * 2 ))
nodes="" node_lines=""
for ((i = 0; i < hosts; i++)); do
  n="$(simnet_ns "$i")"
  nodes+="${nodes:+,}$n"
  node_lines+="NodeName=$n NodeAddr=$(simnet_addr "$i") NodeHostname=$n CPUs=$cpus RealMemory=1000 State=UNKNOWN"$'\n'
done
cat > "$tmp/slurm.conf" <<EOF
# Generated by tools/slurm-hosts.sh for one run; removed with it.
ClusterName=${prefix}
SlurmctldHost=${ctl_name}(${ctl_addr})
SlurmctldPort=${ctl_port}
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${munge_sock}
StateSaveLocation=$tmp/state
TmpFS=$tmp/nodetmp
SlurmdSpoolDir=$tmp/spool-%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=pmi2
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=10
InactiveLimit=0
KillWait=2
MinJobAge=5
MessageTimeout=10
TCPTimeout=5
SchedulerParameters=defer_batch
LaunchParameters=use_interactive_step
PropagateResourceLimitsExcept=ALL
${node_lines}PartitionName=sim Nodes=${nodes} Default=YES MaxTime=30 State=UP OverSubscribe=FORCE:4
EOF
# Slurm 23.11 and later can be told to leave cgroups alone (cgroup.conf, read next to slurm.conf); without
# it slurmd fails to start where /sys/fs/cgroup is not mounted (in a chroot such as tools/debian13-root.sh's).
# 22.05 has no such setting: there slurmd needs the host's cgroup mounts, hence nsenter below.
slurm_version="$(slurmd -V 2>/dev/null | sed -n 's/^slurm[^0-9]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')"
read -r slurm_major slurm_minor <<< "${slurm_version:-0 0}"
if [ "$slurm_major" -gt 23 ] || { [ "$slurm_major" -eq 23 ] && [ "$slurm_minor" -ge 11 ]; }; then
  echo "CgroupPlugin=disabled" > "$tmp/cgroup.conf"
fi
export SLURM_CONF="$tmp/slurm.conf"

# slurmctld: its host name must be SlurmctldHost's, so a UTS namespace of its own (-D: in the foreground,
# so that the PID we hold is the daemon's; -i: ignore state files, which are fresh anyway).
unshare --uts bash -c 'hostname "$0" && exec slurmctld -D -i -f "$1"' "$ctl_name" "$SLURM_CONF" \
  > "$tmp/slurmctld.out" 2>&1 &
daemon_pids+=($!)
for ((i = 0; i < hosts; i++)); do
  n="$(simnet_ns "$i")"
  mkdir -p "$tmp/spool-$n"
  # nsenter, not ip netns exec: that one also remounts /sys for the namespace, without /sys/fs/cgroup, and
  # slurmd 22.05 fails to start without its cgroup file system even when no plugin uses cgroups.  Each node
  # has its own TmpFS (one path, $tmp/nodetmp, with a directory of the node's bound over it in a mount
  # namespace), as real hosts have their own /tmp: Slurm's pmix plugin makes TmpFS/spmix_appdir_<uid>_<step>
  # on every node of a step, and with one directory for all the second node found the first one's ("File
  # exists") and the step failed.  /tmp itself stays shared (programs and files may live there).
  mkdir -p "$tmp/tmp-$n" && chmod 1777 "$tmp/tmp-$n"
  nsenter --net="/run/netns/$n" unshare --uts --mount --propagation private \
    bash -c 'mount --bind "$2" "$3" && hostname "$0" && exec slurmd -D -N "$0" -f "$1"' "$n" "$SLURM_CONF" "$tmp/tmp-$n" "$tmp/nodetmp" \
    > "$tmp/slurmd-$n.out" 2>&1 &
  daemon_pids+=($!)
done
# Every node idle, within 60 s.
up=0
for _ in $(seq 240); do
  idle="$(timeout 5 sinfo -h -N -p sim -t idle -o %N 2>/dev/null | sort -u | wc -l)"
  [ "$idle" = "$hosts" ] && { up=1; break; }
  for p in "${daemon_pids[@]}"; do kill -0 "$p" 2>/dev/null || fail "a daemon (pid $p) ended during start-up"; done
  sleep 0.25
done
[ "$up" = 1 ] || { timeout 5 sinfo -N >&2; fail "not every node came up idle within 60 s"; }

export SLURM_HOSTS_NODES="$nodes" SLURM_HOSTS_DIR="$tmp/shared" SLURM_HOSTS_BRIDGE="$simnet_bridge"
"$@" &
cmd_pid=$!
wait "$cmd_pid"
rc=$?
cmd_pid=""
exit $rc
