#!/usr/bin/env bash
# The project's test command: build everything, then run every CTest suite
# (lit + FileCheck toolchain tests, GoogleTest suites, the sample project built
# with remote-clang++, the Debian packages built and used, the deployment
# recipes validated, brief live fuzzing). GPU tests (label `gpu`) skip with
# a message when this machine has no GPU; scripts/device-run.sh runs them on
# one.
#
# Then the sanitizer build (build-sanitize/, ASan + UBSan, docs/sanitizers.md):
# the GoogleTest suites again, where any sanitizer report, from a test or from
# a process it started (rc-server, the test programs), fails the run; then
# the libFuzzer harnesses of the same build (docs/fuzzing.md): the committed
# inputs replayed and each harness fuzzed RC_FUZZ_SECONDS (60; 0: skip).
# RC_SANITIZE_TESTS=0 skips both; a run of chosen tests (ctest arguments)
# skips the fuzzing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RC_BUILD_DIR:-$ROOT/build}"
bash "$ROOT/scripts/build.sh"
(cd "$BUILD" && ctest --output-on-failure -j1 "$@")

[ "${RC_SANITIZE_TESTS:-1}" != 0 ] || exit 0
bash "$ROOT/scripts/sanitize.sh" "$@"
if [ $# = 0 ] && [ "${RC_FUZZ_SECONDS:-60}" != 0 ]; then
  bash "$ROOT/scripts/fuzz.sh" --seconds "${RC_FUZZ_SECONDS:-60}"
fi
