#!/usr/bin/env bash
# A program on a CPU node with the GPUs of GPU nodes, as one Slurm
# heterogeneous job (docs/operations.md, "On Slurm"):
#
#   sbatch [GPU nodes' options] : [CPU node's options] rc-hetjob.sh \
#     [--server PATH] [--manifest FILE]... [--server-arg ARG]... \
#     [--start-timeout SECONDS] [--] PROGRAM [ARG...]
#
# Component 0, the GPU nodes: one rc-server per node (one srun step), with
# the GPUs Slurm gave the component, listening on the node's NodeAddr at a
# free port, with the key file RC_AUTH_KEY_FILE. Component 1, the CPU
# node: PROGRAM (another srun step, its tasks as the component asked)
# with RC_SERVER set to the first server, RC_SLURM_SERVERS to all of them
# (one URL per GPU node, in node order, comma-separated) and
# RC_AUTH_KEY_FILE. The servers stop when the program ends; the job's exit
# status is the program's. The batch script runs on component 0's first
# node; every path must be the same on all nodes (a shared file system).
set -euo pipefail

die() { echo "rc-hetjob: error: $*" >&2; exit 2; }
say() { echo "rc-hetjob: $*" >&2; }

server=rc-server
manifests=()
server_args=()
start_timeout=120
while (($#)); do
  case "$1" in
  --server) server="${2:?--server needs a path}"; shift 2 ;;
  --manifest) manifests+=("${2:?--manifest needs a file}"); shift 2 ;;
  --server-arg) server_args+=("${2?--server-arg needs an argument}"); shift 2 ;;
  --start-timeout)
    start_timeout="${2:?--start-timeout needs seconds}"; shift 2
    [[ "$start_timeout" =~ ^[0-9]+$ ]] ||
      die "--start-timeout takes whole seconds, not '$start_timeout'" ;;
  --) shift; break ;;
  -*) die "unknown option '$1' (see the header of this script)" ;;
  *) break ;;
  esac
done
(($#)) || die "no program given: rc-hetjob.sh [options] [--] PROGRAM [ARG...]"

# Slurm sets these in a heterogeneous job's batch script; without them
# this is not one (a plain sbatch, or run by hand).
if [ -z "${SLURM_HET_SIZE:-}" ] || [ -z "${SLURM_JOB_NODELIST_HET_GROUP_0:-}" ]; then
  die "not a heterogeneous job: submit with 'sbatch [GPU nodes' options] :" \
      "[CPU node's options] $0 ...'"
fi
((SLURM_HET_SIZE >= 2)) || die "the job has $SLURM_HET_SIZE component(s), needs 2"

# One key file for both sides, as docs/security.md has it: the servers are
# this job's own, started as its user, so the user's key is the tenant's.
key="${RC_AUTH_KEY_FILE:-}"
[ -n "$key" ] || die "set RC_AUTH_KEY_FILE to a key file (rc-server keygen" \
  "FILE, mode 0600) on a file system every node sees: rc-server listens" \
  "off loopback only with a key (docs/security.md)"
[ -r "$key" ] || die "RC_AUTH_KEY_FILE=$key cannot be read here"
key="$(realpath "$key")"

program="$1"; shift
program_path="$(command -v -- "$program")" || die "no program '$program'"
program_path="$(realpath "$program_path")"
# The manifest travels beside the binary (docs/operations.md).
((${#manifests[@]})) || manifests=("$program_path.rcm")
manifest_args=()
for m in "${manifests[@]}"; do
  [ -r "$m" ] || die "no manifest '$m' (give --manifest FILE)"
  manifest_args+=(--manifest "$(realpath "$m")")
done

# Each GPU node's address as Slurm reaches it (NodeAddr; the node name when
# none is set): the server listens there and nowhere else, and the client
# connects to it.
mapfile -t nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST_HET_GROUP_0")
((${#nodes[@]})) || die "no nodes in '$SLURM_JOB_NODELIST_HET_GROUP_0'"
addrs=""
for n in "${nodes[@]}"; do
  a="$(scontrol show node -o "$n" | grep -o ' NodeAddr=[^ ]*' | cut -d= -f2)" ||
    die "scontrol knows no address of node $n"
  addrs+="$n=${a:-$n} "
done

work="$(mktemp -d "${TMPDIR:-/tmp}/rc-hetjob.XXXXXX")"
log="$work/servers.log"
spid=""
stop_servers() {
  [ -n "$spid" ] || return 0
  # SIGTERM to the step's processes: every rc-server drains and exits. (A
  # SIGTERM to srun itself would have the step killed, not drained.) What
  # is left after 45 s (rc-server drains 30 s at most) goes with srun, and
  # anything after that with the job.
  local step
  step="$(sed -nE 's/^ *[0-9]+: rc-hetjob step ([0-9.]+)$/\1/p' "$log" | head -n1)"
  [ -z "$step" ] || scancel --signal=TERM "$step" 2>/dev/null || true
  for _ in $(seq 450); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
  kill -TERM "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  spid=""
}
trap 'stop_servers; rm -rf "$work"' EXIT

# The step's tasks say which step they are (to stop it), look up their
# own node's address in the list handed over as an argument, then become
# rc-server. --label prefixes each line with the task's number: the URLs
# are put in node order by it.
# shellcheck disable=SC2016  # expanded by the tasks' shell, not here
serve='echo "rc-hetjob step $SLURM_JOB_ID.$SLURM_STEP_ID"
for pair in $1; do
  [ "${pair%%=*}" = "$SLURMD_NODENAME" ] && addr="${pair#*=}"
done
[ -n "${addr:-}" ] || { echo "no address for node $SLURMD_NODENAME" >&2; exit 2; }
echo "rc-hetjob: rc-server on $SLURMD_NODENAME ($addr) with" \
  "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}"
shift; server="$1"; shift
exec "$server" --listen "tcp://$addr:0" "$@"'
: > "$log"
say "starting rc-server on ${#nodes[@]} GPU node(s): ${nodes[*]}"
srun --het-group=0 --nodes="${#nodes[@]}" --ntasks="${#nodes[@]}" \
  --ntasks-per-node=1 --label --kill-on-bad-exit=1 \
  bash -c "$serve" rc-serve "$addrs" "$server" --auth-key-file "$key" \
  "${manifest_args[@]}" "${server_args[@]}" > "$log" 2>&1 &
spid=$!

urls=()
deadline=$((SECONDS + start_timeout))
while :; do
  mapfile -t urls < <(sed -nE \
    's/^ *([0-9]+): .*listening on (tcp:\/\/[^ "]*).*/\1 \2/p' "$log" |
    sort -n | cut -d' ' -f2)
  ((${#urls[@]} < ${#nodes[@]})) || break
  if ! kill -0 "$spid" 2>/dev/null || ((SECONDS >= deadline)); then
    cat "$log" >&2
    die "${#urls[@]} of ${#nodes[@]} rc-server(s) listening after" \
        "$((SECONDS - deadline + start_timeout)) s (their log above)"
  fi
  sleep 0.2
done

# The client takes one URL in RC_SERVER today (runtime/src/core/
# runtime_connect.cpp): it gets the first server; the whole list, one per
# GPU node, is in RC_SLURM_SERVERS.
RC_SLURM_SERVERS="$(IFS=,; echo "${urls[*]}")"
export RC_SLURM_SERVERS RC_SERVER="${urls[0]}" RC_AUTH_KEY_FILE="$key"
say "servers: $RC_SLURM_SERVERS; the program uses RC_SERVER=$RC_SERVER"
say "running $program_path on ${SLURM_JOB_NODELIST_HET_GROUP_1:-component 1}"
status=0
srun --het-group=1 "$program_path" "$@" || status=$?
stop_servers
# The servers' lines (session opened and closed, refusals) for the job's
# output: what an operator looks at when a run went wrong.
sed 's/^/rc-server /' "$log" >&2
say "program exited with status $status"
exit "$status"
