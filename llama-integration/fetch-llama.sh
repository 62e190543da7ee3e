#!/usr/bin/env bash
# Prints the path of a llama.cpp source tree (the one llama-cpp-python 0.3.36
# vendors, commit 0c1e570), fetching it once into a cache.
#
#   LLAMA_SRC=DIR       use this tree as is (nothing fetched)
#   LLAMA_TARBALL=FILE  extract this llama_cpp_python-0.3.36 sdist instead of
#                       downloading it (machines without network)
#   LLAMA_CACHE=DIR     cache (default: <repo>/.llama-src, git-ignored)
#
# The sdist comes from PyPI through pip itself (`pip download --no-binary`),
# not from a git clone: the version pin is the commit pin.
set -euo pipefail

VERSION=0.3.36
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${LLAMA_CACHE:-$REPO/.llama-src}"
TREE="$CACHE/llama_cpp_python-$VERSION/vendor/llama.cpp"

if [[ -n "${LLAMA_SRC:-}" ]]; then
  [[ -f "$LLAMA_SRC/CMakeLists.txt" ]] || { echo "fetch-llama: LLAMA_SRC=$LLAMA_SRC is not a llama.cpp tree" >&2; exit 1; }
  echo "$LLAMA_SRC"; exit 0
fi
if [[ -f "$TREE/CMakeLists.txt" ]]; then
  echo "$TREE"; exit 0
fi

mkdir -p "$CACHE"
tarball="${LLAMA_TARBALL:-}"
if [[ -z "$tarball" ]]; then
  tarball="$CACHE/llama_cpp_python-$VERSION.tar.gz"
  if [[ ! -f "$tarball" ]]; then
    echo "fetch-llama: downloading llama-cpp-python==$VERSION (sdist) into $CACHE" >&2
    # pip prepares the sdist's metadata, in an isolated environment with its
    # build backend (scikit-build-core): about 2 minutes, network needed.
    python3 -m pip download -q --no-deps --no-binary :all: -d "$CACHE" \
      "llama-cpp-python==$VERSION" >&2
  fi
fi
[[ -f "$tarball" ]] || { echo "fetch-llama: no sdist at $tarball" >&2; exit 1; }
echo "fetch-llama: extracting vendor/llama.cpp from $tarball" >&2
tar -xzf "$tarball" -C "$CACHE" "llama_cpp_python-$VERSION/vendor/llama.cpp"
[[ -f "$TREE/CMakeLists.txt" ]] || { echo "fetch-llama: $tarball has no vendor/llama.cpp" >&2; exit 1; }
echo "$TREE"
