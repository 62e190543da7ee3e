// The `.rc_manifest` section framing (rc/launch_abi.h): each fragment is
// RC_FRAGMENT_MAGIC, a little-endian u64 length, then a Manifest flatbuffer.
// The linker concatenates the sections of all objects, possibly with zero
// padding between them, so splitting skips zero bytes between frames.
#ifndef RC_TOOLS_FRAGMENTS_H
#define RC_TOOLS_FRAGMENTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace rc::tools {

std::vector<uint8_t> frameFragment(const std::vector<uint8_t> &manifest);

// Splits concatenated frames into separate (verified) manifest buffers.
bool splitFragments(const uint8_t *data, size_t size,
                    std::vector<std::vector<uint8_t>> &out, std::string *error);

} // namespace rc::tools

#endif
