#!/usr/bin/env bash
# A real Slurm on loopback for the tests (Debian's slurmctld, slurmd, slurm-client, munge):
#   scripts/slurm-up.sh start    start it (idempotent) and print the slurm.conf path
#   scripts/slurm-up.sh stop     stop what it started
#   scripts/slurm-up.sh status   exit 0 when the controller answers and every node is up
# One controller and five slurmd on this machine (`slurmd -N <name>`, each on its own
# port; slurm.conf(5) NodeName ... Port=):
#   partition "cpu" (default): n1, n2 -- no generic resources, like a cluster without GPUs
#   partition "gpu":           g1, g2 -- GresTypes=gpu, two gpus each (gres.conf Count=2,
#                                         AutoDetect=off, stand-in device files)
#   partition "mixed":         n1, g1, g3 -- nodes of three kinds: no gres, gpu:2 (untyped)
#                                         and g3's gpu:big:4 (gres.conf Type=big)
# Accounting is off (AccountingStorageType=accounting_storage/none), so sacct has nothing,
# as on many small clusters. No cgroups (a container): proctrack/linuxproc, task/none.
# munged runs as its own user with /run/munge owned by munge (munged(8)).
# Needs root. State, logs and the config live in $PARAPLAN_SLURM_DIR (default
# /tmp/paraplan-slurm); clients find the config through SLURM_CONF=<dir>/slurm.conf.
# PARAPLAN_SLURM_TOPOLOGY=FILE: a topology.conf of these nodes, copied next to slurm.conf, with
# TopologyPlugin=topology/tree (slurm.conf(5), topology.conf(5), Slurm 22.05). Without it the
# cluster has no topology plugin (topology/none), as before.
set -euo pipefail

D="${PARAPLAN_SLURM_DIR:-/tmp/paraplan-slurm}"
CTLD_PORT="${PARAPLAN_SLURM_PORT:-16817}"
TOPOLOGY="${PARAPLAN_SLURM_TOPOLOGY:-}"
NODES=(n1 n2 g1 g2 g3)
export SLURM_CONF="$D/slurm.conf"

say() { printf 'slurm-up: %s\n' "$*" >&2; }

installed() {
  local b
  for b in slurmctld slurmd sbatch srun scontrol munged; do
    command -v "$b" >/dev/null 2>&1 || [[ -x /usr/sbin/$b ]] || { say "$b is not installed (apt-get install slurmctld slurmd slurm-client munge)"; return 1; }
  done
}

alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

munge_up() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return 0; fi
  mkdir -p /run/munge /var/lib/munge /var/log/munge /etc/munge
  chown munge:munge /run/munge /var/lib/munge /var/log/munge
  chmod 0755 /run/munge
  if [[ ! -s /etc/munge/munge.key ]]; then
    if command -v mungekey >/dev/null; then mungekey -c -f -k /etc/munge/munge.key
    else dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none; fi
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  runuser -u munge -- /usr/sbin/munged
  local i
  for i in $(seq 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  say "munged did not start (see /var/log/munge/munged.log)"
  return 1
}

write_conf() {
  mkdir -p "$D/state" "$D/spool"
  local port=$((CTLD_PORT + 1)) n lines=""
  for n in "${NODES[@]}"; do
    mkdir -p "$D/spool/$n"
    local gres=""
    [[ $n == g[12] ]] && gres=" Gres=gpu:2"
    [[ $n == g3 ]] && gres=" Gres=gpu:big:4"
    lines+="NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port CPUs=8 RealMemory=1000$gres State=UNKNOWN"$'\n'
    port=$((port + 1))
  done
  if [[ -n $TOPOLOGY ]]; then
    cp "$TOPOLOGY" "$D/topology.conf.new"
    lines="TopologyPlugin=topology/tree"$'\n'"$lines"
  else
    rm -f "$D/topology.conf"
  fi
  cat >"$D/slurm.conf.new" <<EOF
# Written by scripts/slurm-up.sh: a loopback test cluster.
ClusterName=paraplan
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# A requeued job waits cred_expire before it starts again (slurm.conf(5), AuthInfo): 120 s by
# default, 20 s here so that the requeue test does not wait two minutes.
AuthInfo=cred_expire=20
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
KillWait=2
MinJobAge=30
SlurmdTimeout=30
InactiveLimit=0
GresTypes=gpu
$lines
PartitionName=cpu Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=g1,g2 MaxTime=INFINITE State=UP
PartitionName=mixed Nodes=n1,g1,g3 MaxTime=INFINITE State=UP
EOF
  # Slurm drops a GPU without a File (gres/gpu: "Removing file-less GPU"), so each node
  # names two stand-in device files of its own.
  mkdir -p "$D/dev"
  touch "$D/dev/g1-gpu0" "$D/dev/g1-gpu1" "$D/dev/g2-gpu0" "$D/dev/g2-gpu1"
  touch "$D/dev/g3-gpu0" "$D/dev/g3-gpu1" "$D/dev/g3-gpu2" "$D/dev/g3-gpu3"
  cat >"$D/gres.conf.new" <<EOF
AutoDetect=off
NodeName=g1 Name=gpu File=$D/dev/g1-gpu[0-1]
NodeName=g2 Name=gpu File=$D/dev/g2-gpu[0-1]
NodeName=g3 Name=gpu Type=big File=$D/dev/g3-gpu[0-3]
EOF
  local changed=0 f
  local files=(slurm.conf gres.conf)
  [[ -n $TOPOLOGY ]] && files+=(topology.conf)
  for f in "${files[@]}"; do
    if ! cmp -s "$D/$f.new" "$D/$f"; then mv "$D/$f.new" "$D/$f"; changed=1; else rm -f "$D/$f.new"; fi
  done
  return $changed
}

all_idle() {
  local out
  # A node in two partitions has a line for each (sinfo -N): count each node once.
  out=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u) || return 1
  [[ $(grep -cE ' (idle|alloc|mix)$' <<<"$out") -eq ${#NODES[@]} ]]
}

stop() {
  local n
  for n in "${NODES[@]}"; do
    alive "$D/slurmd-$n.pid" && kill "$(cat "$D/slurmd-$n.pid")" 2>/dev/null || true
  done
  alive "$D/slurmctld.pid" && kill "$(cat "$D/slurmctld.pid")" 2>/dev/null || true
  local i
  for i in $(seq 50); do
    local any=0
    for n in "${NODES[@]}"; do alive "$D/slurmd-$n.pid" && any=1; done
    alive "$D/slurmctld.pid" && any=1
    ((any)) || break
    sleep 0.1
  done
}

start() {
  installed || exit 3
  [[ $(id -u) -eq 0 ]] || { say "needs root (slurmd runs jobs as any user)"; exit 2; }
  munge_up
  local changed=0
  write_conf || changed=1
  if ((changed)); then stop; fi
  if ! alive "$D/slurmctld.pid"; then
    /usr/sbin/slurmctld -f "$SLURM_CONF" -c -i
  fi
  local n
  for n in "${NODES[@]}"; do
    alive "$D/slurmd-$n.pid" || /usr/sbin/slurmd -f "$SLURM_CONF" -N "$n"
  done
  local i
  for i in $(seq 150); do
    if all_idle; then echo "$SLURM_CONF"; return 0; fi
    sleep 0.2
  done
  say "the nodes did not come up:"
  sinfo -N 2>&1 | sed 's/^/  /' >&2 || true
  tail -n 20 "$D/slurmctld.log" >&2 || true
  exit 1
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) all_idle ;;
  *) say "usage: $0 start|stop|status"; exit 2 ;;
esac
