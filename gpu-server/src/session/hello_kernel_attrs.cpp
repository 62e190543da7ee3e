#include "session/hello_kernel_attrs.h"

namespace rc::server {

flatbuffers::Offset<
    flatbuffers::Vector<flatbuffers::Offset<wire::KernelAttributes>>>
helloKernelAttributes(flatbuffers::FlatBufferBuilder &fbb,
                      const SessionSymbols &symbols) {
  std::vector<flatbuffers::Offset<wire::KernelAttributes>> out;
  symbols.forEachKernel([&](const KernelInfo &k) {
    if (!k.hasDeviceCode)
      return; // no attributes: the client answers as for an unknown kernel
    const KernelAttrs &a = k.attrs;
    out.push_back(wire::CreateKernelAttributes(
        fbb, k.id, a.numRegs, a.maxThreadsPerBlock, a.sharedSizeBytes,
        a.constSizeBytes, a.localSizeBytes, a.ptxVersion, a.binaryVersion,
        a.maxDynamicSharedSizeBytes, a.preferredCarveout, a.cacheModeCA));
  });
  return fbb.CreateVector(out);
}

} // namespace rc::server
