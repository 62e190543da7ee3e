// What a client and rc-server tell each other at Hello so that one of
// another release gets a sentence naming both (docs/design/version-skew.md).
// One definition for both sides, so they cannot drift.
#ifndef RC_VERSION_H
#define RC_VERSION_H

#include <cstdint>

namespace rc {

// remote-clang's release; changes with every release, and alone never
// decides whether a session is served.
constexpr const char *kReleaseVersion = "0.1.0";
// The manifest format the toolchain writes and rc-server reads
// (manifest.fbs, Manifest.format_version).
constexpr uint32_t kManifestFormat = 1;

} // namespace rc

#endif
