// Deep copies of manifest tables into a new FlatBufferBuilder: embed (fill in
// a fragment's fatbin) and merge (renumber modules) rebuild manifests from
// parts of others.
#ifndef RC_TOOLS_MANIFEST_COPY_H
#define RC_TOOLS_MANIFEST_COPY_H

#include "manifest_generated.h"

#include <cstdint>
#include <vector>

namespace rc::tools {

namespace fbm = rc::manifest;

flatbuffers::Offset<fbm::Module> copyModule(flatbuffers::FlatBufferBuilder &b,
                                            const fbm::Module &m);
flatbuffers::Offset<fbm::Module>
makeModule(flatbuffers::FlatBufferBuilder &b, const fbm::Module &m,
           const uint8_t *fatbin, size_t fatbinSize, uint64_t fatbinHash,
           bool relocatable = false, bool deviceLinked = false);

// Copies a kernel with its module index replaced; `extraSites` are appended
// (launch sites of the same inline kernel seen in other TUs); `name`, when
// given, replaces its device-side name.
flatbuffers::Offset<fbm::Kernel>
copyKernel(flatbuffers::FlatBufferBuilder &b, const fbm::Kernel &k,
           uint32_t moduleIndex,
           const std::vector<const fbm::LaunchSite *> &extraSites = {},
           const std::string *name = nullptr);
flatbuffers::Offset<fbm::Variable>
copyVariable(flatbuffers::FlatBufferBuilder &b, const fbm::Variable &v,
             uint32_t moduleIndex, const std::string *name = nullptr);

} // namespace rc::tools

#endif
