#!/usr/bin/env bash
# Lists the CUDA runtime, driver and cuBLAS functions llama.cpp's objects call
# that the remote-clang runtime libraries do not serve: those they do not
# export, and those they export only as a stub that fails at the call
# (runtime/gen_unsupported_stubs.py writes <build>/runtime/*_unsupported.cpp).
# Known before the link (and while some objects still fail to compile).
# Exit 1 if any is missing.
#
#   bash llama-integration/missing-symbols.sh [LLAMA_BUILD] [RC_LIBDIR]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LLAMA_BUILD="${1:-${LLAMA_BUILD:-$HERE/../build-llama}}"
LIBDIR="${2:-${RC_BUILD_DIR:-$HERE/../build}/lib}"
objs=$(find "$LLAMA_BUILD" -name '*.o' -path '*ggml*')
[[ -n "$objs" ]] || { echo "missing-symbols: no objects under $LLAMA_BUILD" >&2; exit 2; }
libs=("$LIBDIR"/librc_cudart.so "$LIBDIR"/librc_cuda.so "$LIBDIR"/librc_cublas.so)
for l in "${libs[@]}"; do [[ -f "$l" ]] || { echo "missing-symbols: $l not built" >&2; exit 2; }; done

tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
# cuda*/cu*/cublas*/__cuda* from the objects, minus what ggml defines itself.
# shellcheck disable=SC2086
nm -u --format=posix $objs 2>/dev/null | awk '{print $1}' |
  grep -E '^(cuda|cu[A-Z]|cublas|__cuda)' | sort -u > "$tmp/needed"
# shellcheck disable=SC2086
nm --defined-only --format=posix $objs 2>/dev/null | awk '{print $1}' | sort -u > "$tmp/own"
nm -D --defined-only --format=posix "${libs[@]}" | awk '{print $1}' | sed 's/@.*//' |
  sort -u > "$tmp/exported"
cat "$LIBDIR"/../runtime/*_unsupported.cpp 2>/dev/null |
  sed -n 's/^__attribute__((visibility("default"))) int \([A-Za-z0-9_]*\)().*/\1/p' |
  sort -u > "$tmp/stubbed"
comm -23 "$tmp/exported" "$tmp/stubbed" > "$tmp/have"
comm -23 "$tmp/needed" "$tmp/own" | comm -23 - "$tmp/have" > "$tmp/missing"
echo "missing-symbols: $(wc -l < "$tmp/needed") CUDA/cuBLAS functions used, $(wc -l < "$tmp/missing") not in $LIBDIR"
sed 's/^/  /' "$tmp/missing"
[[ ! -s "$tmp/missing" ]]
