#!/usr/bin/env bash
# The project's test command: build everything, then run every CTest suite
# (lit + FileCheck toolchain tests, GoogleTest suites, the sample project built
# with remote-clang++, brief live fuzzing), then the libFuzzer harnesses.
# GPU tests (label `gpu`) skip with a message when this machine has no GPU;
# scripts/device-test.sh runs them on one.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RC_BUILD_DIR:-$ROOT/build}"
bash "$ROOT/scripts/build.sh"
(cd "$BUILD" && ctest --output-on-failure -j1 "$@")
# The libFuzzer harnesses (docs/fuzzing.md): their own ASan+UBSan build,
# the corpus replayed, each harness fuzzed RC_FUZZ_SECONDS (60; 0: skip).
# A run of chosen tests (ctest arguments) skips them.
if [ $# = 0 ] && [ "${RC_FUZZ_SECONDS:-60}" != 0 ]; then
  bash "$ROOT/scripts/fuzz.sh" --seconds "${RC_FUZZ_SECONDS:-60}"
fi
