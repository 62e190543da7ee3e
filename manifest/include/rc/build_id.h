// The identity of a build: the device code its binary was linked with.
//
// A binary records its modules' fatbin hashes in the remote stubs that
// rc-link embed leaves in its .nv_fatbin (rc/fatbin.h); its manifest records
// the same hashes in its modules, and rc-link merge stores their identity in
// Manifest.build_id. The runtime compares the identity of what a binary
// registers with its manifest's before it trusts the manifest, and sends
// the binaries' identities in Hello; rc-server refuses a build it holds no
// manifest of (docs/manifest-format.md, "Build identity").
#ifndef RC_BUILD_ID_H
#define RC_BUILD_ID_H

#include "manifest_generated.h"

#include <cstdint>
#include <vector>

namespace rc {

// fnv1a64 over the distinct hashes in ascending order, little-endian: link
// order and a fatbin linked twice do not change it. 0 when there are none.
uint64_t buildId(std::vector<uint64_t> moduleHashes);

// The identity of a manifest's modules (whatever build_id it records).
uint64_t buildIdOf(const manifest::Manifest &m);

} // namespace rc

#endif
