#!/usr/bin/env bash
# deploy/slurm/rc-hetjob.sh on a Slurm cluster started here, on this one
# machine: munged, slurmctld and three slurmd (two GPU nodes, one CPU
# node) of Debian's packages with a slurm.conf of our own in a scratch
# folder (free ports, state, spool, logs and stand-in GPUs there, no
# cgroups, no systemd, nothing but loopback). A heterogeneous job runs
# rc-server --test-device on the GPU nodes and twin_int --test-device on
# the CPU node (its argument passed through: without it twin_int checks
# kernel results the test device does not compute); it must pass through
# the first server. A job whose servers cannot start, and one without a
# key, must fail, saying why. Everything started is stopped on exit.
#   slurm_single_node.sh SOURCE_DIR RC_SERVER SAMPLES_DIR
# Exit 77 (skip) without the Slurm and MUNGE packages (scripts/setup.sh
# installs them) or without root (slurmd starts jobs as their user).
set -euo pipefail
src="$1" server="$2" samples="$3"
recipe="$src/deploy/slurm/rc-hetjob.sh"
program="$samples/twin_int"

for tool in munged slurmctld slurmd sbatch scontrol squeue scancel srun; do
  command -v "$tool" > /dev/null || PATH="$PATH:/usr/sbin"
  command -v "$tool" > /dev/null || {
    echo "SKIP: $tool not installed (scripts/setup.sh installs slurm-wlm" \
         "and munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: slurmd needs root to start jobs"; exit 77; }
if [ ! -x "$program" ] || [ ! -r "$program.rcm" ]; then
  echo "FAIL: no $program or its manifest (ctest -R samples_build makes them)"
  exit 1
fi

dir="$(mktemp -d /tmp/rc-slurm.XXXXXX)"
chmod 700 "$dir"
pids=()
cluster=none
submit_pid=""
fail() {
  echo "FAIL: $*"
  for f in "$dir"/*.log "$dir"/*.out; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 40 "$f"; }
  done
  exit 1
}
teardown() {
  [ -z "$submit_pid" ] || kill -TERM "$submit_pid" 2>/dev/null || true
  # Jobs first: slurmd's step daemons outlive slurmd, the jobs' do not.
  # Every job of this cluster (our SLURM_CONF names it) is the test's.
  if [ "$cluster" = ours ]; then
    scancel --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(squeue -h 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  # Last started, first stopped: slurmd, slurmctld, munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "${pids[i]}" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
  rm -rf "$dir"
}
trap teardown EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ports=()
while ((${#ports[@]} < 4)); do
  p="$(free_port)"
  [[ " ${ports[*]} " == *" $p "* ]] || ports+=("$p")
done
ctld_port="${ports[0]}"

# MUNGE signs Slurm's messages: a daemon of our own, with its own key and
# socket, so the machine's (if any) is left alone.
head -c 1024 /dev/urandom > "$dir/munge.key"
chmod 600 "$dir/munge.key"
munged --foreground --force --socket="$dir/munge.sock" \
  --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
  > "$dir/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$dir/munge.sock" ] && break; sleep 0.1; done
[ -S "$dir/munge.sock" ] || fail "munged did not start"

# Three Slurm nodes on this one machine, each its own slurmd on a port of
# its own at 127.0.0.1: "rcgpu1" and "rcgpu2" in partition gpu, "rccpu" in
# partition cpu, as a cluster's GPU and CPU nodes. (Slurm 22.05's backfill
# did not place two components of one heterogeneous job on the same node:
# on one node the job stayed pending.) Two CPUs each whatever the machine
# has (config_overrides). Backfill, which alone schedules heterogeneous
# jobs, runs every second.
#
# Each GPU node's two "GPUs" stand in for /dev/nvidia0 and 1: character
# devices (slurmd wants one, not a link) with /dev/null's numbers. Slurm
# hands a job's GPUs to its steps as CUDA_VISIBLE_DEVICES by their
# numbers; with task/none nothing opens them. Where root may not make
# device files (a container without CAP_MKNOD) the nodes have none, and
# the servers must see none.
mkdir -p "$dir/state" "$dir/spool" "$dir/dev"
gres_node="" gres_job=() gpus_seen=unset
if mknod -m 600 "$dir/dev/nvidia0" c 1 3 &&
   mknod -m 600 "$dir/dev/nvidia1" c 1 3; then
  echo "NodeName=rcgpu[1-2] Name=gpu File=$dir/dev/nvidia[0-1]" > "$dir/gres.conf"
  gres_node="Gres=gpu:2" gres_job=(--gres=gpu:2) gpus_seen=0,1
else
  echo "NOTE: no device files can be made here: the GPU nodes have no GPUs"
  : > "$dir/gres.conf"
fi
cat > "$dir/slurm.conf" <<EOF
ClusterName=rctest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=2
MailProg=/bin/true
PlugStackConfig=$dir/plugstack.conf
GresTypes=gpu
InactiveLimit=0
NodeName=rcgpu1 NodeAddr=127.0.0.1 Port=${ports[1]} CPUs=2 $gres_node State=UNKNOWN
NodeName=rcgpu2 NodeAddr=127.0.0.1 Port=${ports[2]} CPUs=2 $gres_node State=UNKNOWN
NodeName=rccpu NodeAddr=127.0.0.1 Port=${ports[3]} CPUs=2 State=UNKNOWN
PartitionName=gpu Nodes=rcgpu[1-2] Default=YES MaxTime=10 State=UP
PartitionName=cpu Nodes=rccpu MaxTime=10 State=UP
EOF
: > "$dir/plugstack.conf"
export SLURM_CONF="$dir/slurm.conf"
cluster=ours

slurmctld -D -i -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 &
pids+=($!)
nodes=(rcgpu1 rcgpu2 rccpu)
for node in "${nodes[@]}"; do
  slurmd -D -N "$node" -f "$SLURM_CONF" > "$dir/slurmd-$node.out" 2>&1 &
  pids+=($!)
done
for _ in $(seq 150); do
  states="$(sinfo -h -N -o %t 2>/dev/null | tr '\n' ' ' || true)"
  [ "$states" = "idle idle idle " ] && break
  sleep 0.2
done
[ "$states" = "idle idle idle " ] ||
  fail "the nodes are not idle after 30 s (states: '$states')"
echo "cluster up: slurmctld on 127.0.0.1:$ctld_port, ${nodes[*]} on ${ports[*]:1}"

"$server" keygen "$dir/key" > /dev/null

# submit NAME [sbatch's environment...]: the heterogeneous job (both GPU
# nodes with their two GPUs each : one CPU of the CPU node); waits for it;
# its exit status is the job's.
submit() {
  local name="$1" status=0; shift
  # In the background, so that a signal to the test ends it at once.
  env "$@" timeout 90 sbatch --wait --quiet --job-name="$name" \
    --output="$dir/$name.out" --time=2 -p gpu -N2 "${gres_job[@]}" : -p cpu -n1 \
    "$recipe" --server "$server" --server-arg --test-device \
    -- "$program" --test-device &
  submit_pid=$!
  wait "$submit_pid" || status=$?
  submit_pid=""
  return "$status"
}

# The program on the CPU node with the servers of the GPU nodes.
submit ok RC_AUTH_KEY_FILE="$dir/key" || fail "the job failed (exit $?)"
out="$dir/ok.out"
sed 's/^/job| /' "$out"
grep -qx "PASS twin_int" "$out" || fail "twin_int did not pass"
grep -q "^rc-hetjob: running .*/twin_int on rccpu$" "$out" ||
  fail "the program did not run on the CPU node"
for node in rcgpu1 rcgpu2; do
  grep -q "rc-server on $node (127.0.0.1) with CUDA_VISIBLE_DEVICES=$gpus_seen$" "$out" ||
    fail "$node's rc-server did not get the job's GPUs there ($gpus_seen)"
done
# One URL per GPU node, in node order; RC_SERVER is the first.
url='tcp://127\.0\.0\.1:[0-9]+'
line="$(grep -E "^rc-hetjob: servers: $url,$url; the program uses RC_SERVER=$url$" "$out")" ||
  fail "the recipe did not hand over two URLs and the first"
list="${line#*servers: }"; list="${list%%;*}"
[ "${list%%,*}" != "${list#*,}" ] || fail "both servers have one URL: $list"
[ "${line##*RC_SERVER=}" = "${list%%,*}" ] ||
  fail "RC_SERVER is not the first of $list"
grep -q "^rc-server 0: .*listening on ${list%%,*}\"$" "$out" ||
  fail "the first URL is not rcgpu1's (task 0's) server"
# The session went to the first server, and none to the second.
grep -q "^rc-server 0: .*event=session_opened .*twin_int, tenant 'default'" "$out" ||
  fail "no session of twin_int on the first rc-server"
grep -q "^rc-server 0: .*event=session_closed .*(goodbye)" "$out" ||
  fail "twin_int's session did not end with a goodbye"
! grep -q "^rc-server 1: .*event=session_opened" "$out" ||
  fail "a session on the second server: the client takes the first"
[ "$(grep -c "event=shutdown" "$out")" = 2 ] ||
  fail "the two rc-servers were not both stopped by SIGTERM"
echo "PASS: the sample ran on the CPU node through the first of two GPU nodes' rc-servers"

# A server that does not start (a key file others may read: rc-server
# refuses it) fails the job at once, with the servers' reasons in its
# output, and the program never runs.
install -m 644 "$dir/key" "$dir/key-open"
if submit open RC_AUTH_KEY_FILE="$dir/key-open"; then
  fail "a job with a refused key ran"
fi
grep -q "chmod 600" "$dir/open.out" ||
  fail "the job's output does not hold rc-server's refusal of the key"
grep -q "0 of 2 rc-server(s) listening" "$dir/open.out" ||
  fail "the recipe did not say its servers did not start"
! grep -q "twin_int" "$dir/open.out" || fail "the program ran without servers"
echo "PASS: servers that do not start fail the job, saying why"

# Without a key the recipe refuses before starting anything.
if submit nokey RC_AUTH_KEY_FILE=; then fail "a job without a key ran"; fi
grep -q "set RC_AUTH_KEY_FILE to a key file" "$dir/nokey.out" ||
  fail "the keyless job did not say why it failed"
! grep -q "starting rc-server" "$dir/nokey.out" ||
  fail "the keyless job started servers"
echo "PASS: a job without a key fails, naming RC_AUTH_KEY_FILE"
