#!/usr/bin/env bash
# Many clients at once copying sizes around the RMA thresholds both ways
# (rc_rt_prog_copy_stress, every byte checked) against rc-server on this
# machine's GPU, once per variant (an environment for server and clients).
# A variant passes when every client passes and rc-server survives.
#   bash scripts/gpu-copy-stress.sh RC_DIR MANIFEST
#   N=16 IT=60 VARIANTS="inline=RC_RMA=0 rma=RC_RMA=1 ..." (name=VAR=v,VAR=v)
# RC_DIR is an unpacked bundle's rc/ (bin/rc-server, bin/rc_rt_prog_copy_stress,
# lib/); MANIFEST any .rcm (rc-server needs one). Logs: $OUT or /tmp.
set -uo pipefail
RC="${1:?usage: gpu-copy-stress.sh RC_DIR MANIFEST}"
MANIFEST="${2:?usage: gpu-copy-stress.sh RC_DIR MANIFEST}"
N="${N:-16}"; IT="${IT:-60}"
VARIANTS="${VARIANTS:-inline=RC_RMA=0 rma=RC_RMA=1 readback=RC_RMA_UPLOAD_MIN=0 ring=RC_RMA_READBACK_MIN=0}"
LOGS="${OUT:-/tmp}/copy-stress"
mkdir -p "$LOGS"
export LD_LIBRARY_PATH="$RC/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
for v in $VARIANTS; do
  name="${v%%=*}"; vars=""; [[ "$v" == *=* ]] && vars="${v#*=}"
  url="shm://rc-stress-$$-$name"
  env ${vars//,/ } "$RC/bin/rc-server" --listen "$url" --manifest "$MANIFEST" > "$LOGS/$name.server.log" 2>&1 &
  server=$!
  for _ in $(seq 300); do grep -q "listening on" "$LOGS/$name.server.log" && break; sleep 0.1; done
  pids=()
  for i in $(seq "$N"); do
    env ${vars//,/ } RC_SERVER="$url" timeout 300 "$RC/bin/rc_rt_prog_copy_stress" "$IT" "$i" \
      > "$LOGS/$name.client$i.log" 2>&1 &
    pids+=($!)
  done
  failed=0
  for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
  alive=yes; kill -0 "$server" 2>/dev/null || alive=no
  kill -INT "$server" 2>/dev/null; wait "$server" 2>/dev/null
  crashed="$(grep -c 'terminated with signal' "$LOGS/$name.server.log")"
  echo "copy-stress $name ($vars): $((N - failed)) of $N clients passed, server alive: $alive, crashes: $crashed"
  [[ $failed -eq 0 && $alive == yes && $crashed -eq 0 ]] || { status=1; grep -h FAIL "$LOGS/$name".client*.log | head -5; grep -A12 'terminated with signal' "$LOGS/$name.server.log" | head -30; }
done
exit $status
