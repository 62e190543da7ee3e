#!/usr/bin/env bash
# Builds the product and its GoogleTest suites with ASan and UBSan
# (RC_SANITIZE, clang 19) into build-sanitize/ (or $RC_SANITIZE_BUILD_DIR)
# and runs them, GPU tests excepted (docs/sanitizers.md). Every process
# writes its reports into a folder of the build; a report from any of them
# (a test, or the rc-server and programs it started) fails the run and is
# printed. Arguments go to ctest (e.g. -R server).
# The same build holds the libFuzzer harnesses (RC_FUZZERS, scripts/fuzz.sh):
#   sanitize.sh --build-only [TARGET ...]   configure and build, run nothing
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAN="${RC_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
[ -d "$ROOT/.cuda-root" ] || { echo "sanitize.sh: run scripts/setup.sh first (.cuda-root missing)" >&2; exit 1; }
if ! grep -qs '^RC_FUZZERS:BOOL=ON' "$SAN/CMakeCache.txt"; then
  cmake -S "$ROOT" -B "$SAN" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DRC_SANITIZE=address,undefined -DRC_FUZZERS=ON >/dev/null
fi
if [ "${1:-}" = --build-only ]; then
  shift
  exec ninja -C "$SAN" -j"$(nproc)" "$@"
fi
ninja -C "$SAN" -j"$(nproc)"

REPORTS="$SAN/sanitizer-reports"
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
# log_path: reports of processes whose exit status no test looks at (an
# rc-server a test stops with SIGTERM) are not lost.
export ASAN_OPTIONS="log_path=$REPORTS/asan:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="log_path=$REPORTS/ubsan:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# libfabric's own allocations left at exit (test/fuzz/lsan.supp) are not ours.
# print_suppressions=0: the tally of matched suppressions is not a report.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/test/fuzz/lsan.supp:print_suppressions=0}"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-19/bin/llvm-symbolizer}"
# Sanitized code runs two to three times slower: a program's connect (the
# listener handles one handshake at a time) gets 30 s instead of 5 s. Tests
# of the timeout itself set their own.
export RC_CONNECT_TIMEOUT_MS="${RC_CONNECT_TIMEOUT_MS:-30000}"
status=0
(cd "$SAN" && ctest --output-on-failure -j1 -LE gpu "$@") || status=$?
if compgen -G "$REPORTS/*" > /dev/null; then
  for f in "$REPORTS"/*; do
    echo "== sanitizer report $f" >&2
    cat "$f" >&2
  done
  echo "sanitize.sh: $(ls "$REPORTS" | wc -l) sanitizer report(s), see above" >&2
  status=1
fi
exit "$status"
