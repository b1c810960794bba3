#!/usr/bin/env bash
# What another user or job may leave in /dev/shm must not hang or crash a job: names taken in advance
# (squatted), the window gate's lock file planted (a symbolic link, another user's file) or held for ever,
# a full /dev/shm, and the leftovers of a killed process (ARMCI_Cleanup).  Each case runs tests/errors/shm_job
# in a private mount namespace over a private tmpfs on /dev/shm (so that it cannot disturb other jobs on the
# machine, nor they it), which needs root: otherwise every case is skipped (exit 77, "SKIP" lines).  Run
# directly (np 0 in tests/manifest.txt): it starts its own jobs.
# Closing line: "N passed, N failed".
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${ARMCIX_BUILDDIR:-$here/../..}/tests/errors/shm_job"
mpiexec="${MPIEXEC:-mpiexec.mpich}"
bound="${SHM_HAZARDS_SECONDS:-60}"  # generous for a loaded 2-core machine; a hang is what it catches

if [ "${1:-}" != --inside ]; then
  if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
    echo "SKIP shm hazards: needs root (a private mount namespace and tmpfs on /dev/shm)"
    echo "0 passed, 0 failed"
    exit 77
  fi
  exec unshare -m --propagation private "$0" --inside
fi

passed=0 failed=0
fresh_shm() {  # size: a new private tmpfs on /dev/shm (the previous one goes with its files)
  umount /dev/shm 2>/dev/null
  mount -t tmpfs -o "size=$1,mode=1777" tmpfs /dev/shm
}
verdict() {  # name, ok(0/1), output
  if [ "$2" = 1 ]; then echo "PASS $1"; passed=$((passed + 1))
  else echo "FAIL $1"; echo "$3" | tail -n 15 | sed 's/^/    | /'; failed=$((failed + 1)); fi
}
runs() {  # name, np, env assignments..., --, shm_job arguments: the job must run through
  local name="$1" np="$2"; shift 2
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local out rc ok=1
  out="$(env "${envs[@]}" timeout "$bound" $mpiexec -n "$np" "$bin" "$@" 2>&1)"; rc=$?
  [ $rc = 0 ] && grep -q '^shm_job: ok' <<< "$out" || ok=0
  verdict "$name" $ok "exit $rc: $out"
}
aborts() {  # name, np, env assignments..., --, shm_job arguments, --, expected substrings...
  local name="$1" np="$2"; shift 2
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local args=(); while [ "$1" != -- ]; do args+=("$1"); shift; done; shift
  local out rc ok=1
  out="$(env "${envs[@]}" timeout "$bound" $mpiexec -n "$np" "$bin" "${args[@]}" 2>&1)"; rc=$?
  { [ $rc != 0 ] && [ $rc != 124 ]; } || ok=0
  grep -qE "Segmentation|SIGSEGV|SIGBUS|signal 7|signal 11|Bus error" <<< "$out" && ok=0
  for want in "$@"; do grep -qF -- "$want" <<< "$out" || ok=0; done
  verdict "$name" $ok "exit $rc$([ $rc = 124 ] && echo ': timed out'): $out"
}
nobody="$(id -u nobody 2>/dev/null || echo 65534)"

# 1. Squatted names: every name the node's processes would have made from their pids, taken by another user
# beforehand.  In a PID namespace of its own the job's pids are small and known.
fresh_shm 256M
for p in $(seq 1 300); do
  : > "/dev/shm/armcix-nodesync-$p-0"
  for r in 0 1 2 3; do for k in 1 2 3; do : > "/dev/shm/armcix-$p-$r-$k"; done; done
done
chown "$nobody" /dev/shm/armcix-*
squat() { unshare --pid --fork --mount-proc env "$@"; }
runs "squatted names, node-sync page (ARMCI_NODE_SYNC=1)" 2 ARMCI_NODE_SYNC=1 -- malloc 1 < /dev/null
out="$(squat ARMCI_NODE_SYNC=1 timeout "$bound" $mpiexec -n 2 "$bin" malloc 1 2>&1)"
ok=0; grep -q '^shm_job: ok' <<< "$out" && ok=1
verdict "squatted names in a PID namespace, node-sync page" $ok "$out"
out="$(squat ARMCI_PROGRESS_RANKS=1 ARMCI_NODE_SIZE=2 timeout "$bound" $mpiexec -n 4 "$bin" malloc 1 2>&1)"
ok=0; grep -q '^shm_job: ok' <<< "$out" && ok=1
verdict "squatted names in a PID namespace, progress ranks' segments and wake channels" $ok "$out"
left="$(find /dev/shm -name 'armcix-*' -user "$(id -u)" | wc -l)"
verdict "no segment left behind by the jobs that ran (found $left)" "$([ "$left" = 0 ] && echo 1 || echo 0)" ""

# 2. The window gate's lock file (ARMCI_WINDOW_GATE=1 on any MPI; windows of a group smaller than the job).
gate="/dev/shm/armcix-window-gate.$(hostname).$(id -u)"
g_env=(ARMCI_SHM=0 ARMCI_WINDOW_GATE=1 ARMCI_WINDOW_GATE_TIMEOUT_S=3)
fresh_shm 256M
runs "window gate, no file beforehand" 3 "${g_env[@]}" -- group
fresh_shm 256M
: > /dev/shm/elsewhere; ln -s /dev/shm/elsewhere "$gate"
aborts "window gate, a symbolic link planted" 3 "${g_env[@]}" -- group -- \
  "ARMCI Error" "ARMCI_Malloc" "$gate" "is a symbolic link"
fresh_shm 256M
: > "$gate"; chown "$nobody" "$gate"; chmod 666 "$gate"
aborts "window gate, another user's file" 3 "${g_env[@]}" -- group -- \
  "ARMCI Error" "ARMCI_Malloc" "$gate" "not this user's private file"
fresh_shm 256M
: > "$gate"; chmod 600 "$gate"
flock -x "$gate" sleep 1000 &
holder=$!
sleep 0.5
aborts "window gate, the lock held for ever" 3 "${g_env[@]}" -- group -- \
  "ARMCI Error" "ARMCI_Malloc" "ARMCI_WINDOW_GATE_TIMEOUT_S = 3 s"
kill "$holder" 2>/dev/null; pkill -P "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

# 3. A full /dev/shm: 96 MiB free of 256 MiB, and 2 x 128 MiB asked.  Through MPI's shared-memory windows
# (the default), and through the segments armci-x makes itself (progress ranks' proxied slices).  MPI needs
# some of what is free for itself (UCX 1.18's workers, 4 processes: more than 24 MiB, Debian 13).
fill() {  # leaves MiB free
  local total; total=$(( $(stat -f -c '%a * %S' /dev/shm) / 1048576 ))
  fallocate -l "$(( total - $1 ))M" /dev/shm/filler
}
fresh_shm 256M; fill 96
runs "full /dev/shm, what fits still runs" 2 -- malloc 1
aborts "full /dev/shm, MPI's shared-memory window" 2 -- malloc 128 -- \
  "ARMCI Error" "ARMCI_Malloc" "argument 'bytes' = 134217728" "/dev/shm has" "bytes free"
fresh_shm 256M; fill 96
aborts "full /dev/shm, progress ranks' proxied segments" 4 ARMCI_PROGRESS_RANKS=1 ARMCI_NODE_SIZE=2 -- malloc 128 -- \
  "ARMCI Error" "ARMCI_Malloc" "/dev/shm is full: a shared-memory segment of" "bytes are free"

# 4. ARMCI_Cleanup removes this user's leftovers of dead processes of this PID namespace, and nothing else.
fresh_shm 64M
ns="$(stat -L -c %i /proc/self/ns/pid)"
uid="$(id -u)"
sh -c 'echo $$ > /dev/shm/deadpid'; dead="$(cat /dev/shm/deadpid)"; rm -f /dev/shm/deadpid
sleep 1000 & live=$!
: > "/dev/shm/armcix-$uid-$ns-$dead-00000000deadbeef"
: > "/dev/shm/armcix-$uid-$ns-$dead-00000000deadbee0.fifo"
: > "/dev/shm/armcix-$uid-$ns-$live-00000000000a11fe"
: > "/dev/shm/armcix-$uid-$((ns + 1))-$dead-0000000000000001"
: > "/dev/shm/armcix-$nobody-$ns-$dead-0000000000000002"; chown "$nobody" "/dev/shm/armcix-$nobody-$ns-$dead-0000000000000002"
runs "ARMCI_Cleanup runs" 2 -- cleanup
ok=1
[ -e "/dev/shm/armcix-$uid-$ns-$dead-00000000deadbeef" ] && ok=0
[ -e "/dev/shm/armcix-$uid-$ns-$dead-00000000deadbee0.fifo" ] && ok=0
verdict "ARMCI_Cleanup removes a dead process's segment and FIFO" $ok "$(ls -la /dev/shm)"
ok=1
[ -e "/dev/shm/armcix-$uid-$ns-$live-00000000000a11fe" ] || ok=0
[ -e "/dev/shm/armcix-$uid-$((ns + 1))-$dead-0000000000000001" ] || ok=0
[ -e "/dev/shm/armcix-$nobody-$ns-$dead-0000000000000002" ] || ok=0
verdict "ARMCI_Cleanup keeps a live process's, another PID namespace's and another user's" $ok "$(ls -la /dev/shm)"
kill "$live" 2>/dev/null; wait "$live" 2>/dev/null

umount /dev/shm 2>/dev/null
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
