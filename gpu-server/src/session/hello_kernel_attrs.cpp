#include "session/hello_kernel_attrs.h"

namespace rc::server {

flatbuffers::Offset<
    flatbuffers::Vector<flatbuffers::Offset<wire::KernelAttributes>>>
helloKernelAttributes(flatbuffers::FlatBufferBuilder &fbb,
                      const Registry &registry,
                      const std::vector<bool> &allowedManifests) {
  std::vector<flatbuffers::Offset<wire::KernelAttributes>> out;
  for (const auto &kv : registry.kernels) {
    const KernelInfo &k = kv.second;
    bool allowed = false;
    for (uint32_t m : k.manifests)
      allowed = allowed || (m < allowedManifests.size() && allowedManifests[m]);
    if (!allowed)
      continue;
    const KernelAttrs &a = k.attrs;
    out.push_back(wire::CreateKernelAttributes(
        fbb, k.id, a.numRegs, a.maxThreadsPerBlock, a.sharedSizeBytes,
        a.constSizeBytes, a.localSizeBytes, a.ptxVersion, a.binaryVersion,
        a.maxDynamicSharedSizeBytes, a.preferredCarveout, a.cacheModeCA));
  }
  return fbb.CreateVector(out);
}

} // namespace rc::server
