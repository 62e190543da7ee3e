# Sourced by the multi-client benches: an NVIDIA MPS control daemon for
# the local (nvcc-built, no rc-server) baseline, with pipe and log
# directories of its own, so no system-wide daemon is touched.
#   mps_local_start   starts it; false, saying why, where it cannot
#   mps_local_env     prints the client's variables (for env)
#   mps_local_stop    `quit` on its control pipe (also at exit)
MPS_LOCAL_DIR=""

mps_local_start() {
  command -v nvidia-cuda-mps-control > /dev/null ||
    { echo "mps-local: nvidia-cuda-mps-control is not on PATH: no local+MPS baseline"; return 1; }
  MPS_LOCAL_DIR="$(mktemp -d /tmp/rc-bench-mps.XXXXXX)"
  mkdir -p "$MPS_LOCAL_DIR/pipe" "$MPS_LOCAL_DIR/log"
  env CUDA_MPS_PIPE_DIRECTORY="$MPS_LOCAL_DIR/pipe" CUDA_MPS_LOG_DIRECTORY="$MPS_LOCAL_DIR/log" \
    nvidia-cuda-mps-control -d ||
    { echo "mps-local: nvidia-cuda-mps-control -d failed"; rm -rf "$MPS_LOCAL_DIR"; MPS_LOCAL_DIR=""; return 1; }
  for _ in $(seq 100); do [[ -e "$MPS_LOCAL_DIR/pipe/control" ]] && return 0; sleep 0.1; done
  echo "mps-local: the daemon opened no control pipe"; mps_local_stop; return 1
}

mps_local_env() {
  echo "CUDA_MPS_PIPE_DIRECTORY=$MPS_LOCAL_DIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPS_LOCAL_DIR/log"
}

mps_local_stop() {
  [[ -n "$MPS_LOCAL_DIR" ]] || return 0
  echo quit | env CUDA_MPS_PIPE_DIRECTORY="$MPS_LOCAL_DIR/pipe" nvidia-cuda-mps-control > /dev/null 2>&1
  for _ in $(seq 50); do [[ -e "$MPS_LOCAL_DIR/pipe/control" ]] || break; sleep 0.1; done
  rm -rf "$MPS_LOCAL_DIR"
  MPS_LOCAL_DIR=""
}

# A daemon of the system's (the default /tmp/nvidia-mps) would make every
# "time-sliced" row an MPS one.
mps_local_check_system() {
  [[ -e /tmp/nvidia-mps/control ]] &&
    echo "mps-local: warning: a system MPS daemon runs (/tmp/nvidia-mps): rows said to time-slice may not"
  return 0
}
