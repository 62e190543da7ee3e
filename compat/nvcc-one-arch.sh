#!/usr/bin/env bash
# nvcc for the samples' local build on the GPU machine: the samples ask for
# fifteen architectures (50 ... 120), some of which CUDA 13 no longer knows
# and all but one of which the machine cannot run. This keeps only the
# GPU's own ($RC_COMPAT_ARCH, default 90) and passes everything else on.
arch="${RC_COMPAT_ARCH:-90}"
args=()
dropped=0; kept=0
for a in "$@"; do
  case "$a" in
    --generate-code=arch=compute_${arch},*) args+=("$a"); kept=1 ;;
    --generate-code=*) dropped=1 ;;
    *) args+=("$a") ;;
  esac
done
# A sample for other architectures only still gets code for this GPU.
if [[ $dropped -eq 1 && $kept -eq 0 ]]; then
  args+=("--generate-code=arch=compute_${arch},code=[compute_${arch},sm_${arch}]")
fi
exec "${RC_COMPAT_NVCC:-nvcc}" "${args[@]}"
