#!/usr/bin/env bash
# Prints the process tree under PID and the stack of every thread of each process in it: what a hung test
# was doing when tests/check.sh's timeout was about to end it (CI keeps only the log).  With gdb (installed by
# tools/install-deps.sh) the user-space backtraces, else the kernel's wait channel of each thread.  Read-only:
# gdb attaches, prints and detaches.
#   tools/dump-stacks.sh PID [MAX_PROCESSES]
set -uo pipefail
root=$1 max=${2:-16}
tree=("$root") i=0
while [ $i -lt ${#tree[@]} ]; do
  for c in $(ps -o pid= --ppid "${tree[$i]}" 2>/dev/null); do tree+=("$c"); done
  i=$((i + 1))
done
echo "== process tree under $root ($(date +%T))"
for p in "${tree[@]}"; do ps -o pid=,ppid=,stat=,etime=,time=,args= -p "$p" 2>/dev/null | cut -c1-200; done
n=0
for p in "${tree[@]}"; do
  comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
  # Launchers (shown in the tree above) wait in poll(); the ranks are what matter.
  case "$comm" in bash|sh|timeout|sleep|ip|env|simhosts*|dump-stacks*|mpiexec*|mpirun*|orterun|orted|hydra_pmi_proxy|prte*) continue ;; esac
  n=$((n + 1)); [ $n -gt "$max" ] && { echo "== (more processes left out)"; break; }
  echo "== pid $p ($comm)"
  if command -v gdb >/dev/null; then
    timeout 30 gdb -p "$p" -batch -nx -ex 'set print frame-arguments none' -ex 'thread apply all bt 14' 2>/dev/null |
      grep -E '^(Thread|#)' | sed -E 's/ \(.*\) (at|from) / \1 /' | cut -c1-160
  else
    for t in /proc/"$p"/task/*; do echo "thread ${t##*/}: $(cat "$t/wchan" 2>/dev/null) $(cut -d' ' -f3 "$t/stat" 2>/dev/null)"; done
  fi
done
