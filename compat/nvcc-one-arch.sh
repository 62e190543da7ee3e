#!/usr/bin/env bash
# nvcc for the local (reference) builds on the GPU machine: cuda-samples ask
# for fifteen architectures (50 ... 120) and Rodinia's Makefiles for sm_13 ...
# sm_35, which CUDA 13 no longer knows, and the machine runs one of them
# anyway. This keeps the GPU's own ($RC_COMPAT_ARCH, default 90) wherever a
# command names architectures, in every spelling nvcc takes (-arch,
# --gpu-architecture, -code, --gpu-code, -gencode, --generate-code; with a
# space or '='), and passes everything else on.
arch="${RC_COMPAT_ARCH:-90}"
args=()
dropped=0; kept=0
ours() { [[ "$1" == *compute_${arch}* || "$1" == *sm_${arch}* ]]; }
argv=("$@")
for ((i = 0; i < ${#argv[@]}; i++)); do
  a="${argv[i]}"
  case "$a" in
    -arch|--gpu-architecture|-code|--gpu-code|-gencode|--generate-code)
      value="${argv[i + 1]:-}"; i=$((i + 1))
      if ours "$value"; then args+=("$a" "$value"); kept=1; else dropped=1; fi ;;
    -arch=*|--gpu-architecture=*|-code=*|--gpu-code=*|-gencode=*|--generate-code=*)
      if ours "${a#*=}"; then args+=("$a"); kept=1; else dropped=1; fi ;;
    *) args+=("$a") ;;
  esac
done
# A build for other architectures only still gets code for this GPU.
if [[ $dropped -eq 1 && $kept -eq 0 ]]; then
  args+=("--generate-code=arch=compute_${arch},code=[compute_${arch},sm_${arch}]")
fi
exec "${RC_COMPAT_NVCC:-nvcc}" "${args[@]}"
