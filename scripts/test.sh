#!/usr/bin/env bash
# The project's test command: build everything, then run every CTest suite
# (lit + FileCheck toolchain tests, GoogleTest suites, the sample project built
# with remote-clang++). GPU tests (label `gpu`) skip with a message when this
# machine has no GPU; scripts/device-test.sh runs them on one.
#
# Then the GoogleTest suites again, built with ASan and UBSan in a second
# folder (docs/sanitizers.md): any sanitizer report, from a test or from a
# process it started (rc-server, the test programs), fails the run.
# RC_SANITIZE_TESTS=0 skips that part.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RC_BUILD_DIR:-$ROOT/build}"
bash "$ROOT/scripts/build.sh"
(cd "$BUILD" && ctest --output-on-failure -j1 "$@")

[ "${RC_SANITIZE_TESTS:-1}" != 0 ] || exit 0
bash "$ROOT/scripts/sanitize.sh" "$@"
