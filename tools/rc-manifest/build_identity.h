// `rc-manifest build-id`: the build identity (rc/build_id.h) of binaries
// and manifests, so that one can tell whether a manifest is a binary's own.
#ifndef RC_MANIFEST_BUILD_IDENTITY_H
#define RC_MANIFEST_BUILD_IDENTITY_H

#include <string>
#include <vector>

namespace rc::tools {

// Prints "FILE: build 0x..." per file: for a binary, the identity of the
// modules its .nv_fatbin names; for a manifest, the identity of its
// modules. Returns false (after saying why) when a file has none, cannot
// be read, or is a manifest whose recorded build_id is not its modules'.
bool printBuildIds(const std::vector<std::string> &files);

} // namespace rc::tools

#endif
