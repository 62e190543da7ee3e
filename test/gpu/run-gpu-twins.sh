#!/usr/bin/env bash
# $1 rc-server, $2 samples build dir, $3 run-together.sh
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU on this machine; run scripts/device-run.sh on a GPU machine" \
       "(see README, 'GPU tests')"
  exit 77
fi
exec bash "$3" "$1" "$2" twin_int twin_double
