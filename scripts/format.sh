#!/usr/bin/env bash
# Formats the project's C, C++ and CUDA sources with the pinned clang-format
# 19 (.clang-format: LLVM style), or with --check lists the files that differ
# and fails. test/lit is left out: its inputs are matched line by line by
# FileCheck and diagnostics name their lines.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FORMAT="${CLANG_FORMAT:-clang-format-19}"
command -v "$FORMAT" >/dev/null ||
  { echo "format.sh: $FORMAT not found (scripts/setup.sh installs it)" >&2; exit 2; }
cd "$ROOT"
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.cpp' '*.h' '*.cu' '*.cuh' |
  grep -v '^test/lit/')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    "$FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if ((${#bad[@]})); then
    echo "format.sh: ${#bad[@]} file(s) differ from $FORMAT's format" \
      "(run scripts/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format.sh: ${#files[@]} files formatted"
else
  "$FORMAT" -i "${files[@]}"
fi
