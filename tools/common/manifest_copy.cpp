#include "manifest_copy.h"

namespace rc::tools {
namespace {

flatbuffers::Offset<flatbuffers::String> str(flatbuffers::FlatBufferBuilder &b,
                                             const flatbuffers::String *s) {
  return s ? b.CreateString(s->str()) : 0;
}

flatbuffers::Offset<fbm::LaunchSite> copySite(flatbuffers::FlatBufferBuilder &b,
                                              const fbm::LaunchSite &s) {
  return fbm::CreateLaunchSite(b, str(b, s.file()), s.line(), s.column(),
                               str(b, s.how()));
}

flatbuffers::Offset<fbm::Param> copyParam(flatbuffers::FlatBufferBuilder &b,
                                          const fbm::Param &p) {
  flatbuffers::Offset<flatbuffers::Vector<uint32_t>> ptrs = 0;
  if (p.pointer_offsets())
    ptrs = b.CreateVector(p.pointer_offsets()->data(),
                          p.pointer_offsets()->size());
  return fbm::CreateParam(b, str(b, p.name()), str(b, p.type()), p.offset(),
                          p.size(), p.align(), p.kind(), ptrs);
}

} // namespace

flatbuffers::Offset<fbm::Module>
makeModule(flatbuffers::FlatBufferBuilder &b, const fbm::Module &m,
           const uint8_t *fatbin, size_t fatbinSize, uint64_t fatbinHash,
           bool relocatable, bool deviceLinked) {
  auto source = str(b, m.source());
  // Fatbins hold cubins the server hands to cuModuleLoadData: keep them
  // 16-byte aligned inside the manifest.
  b.ForceVectorAlignment(fatbinSize, 1, 16);
  auto bytes = b.CreateVector(fatbin, fatbinSize);
  return fbm::CreateModule(b, source, fatbinHash, bytes, relocatable,
                           deviceLinked);
}

flatbuffers::Offset<fbm::Module> copyModule(flatbuffers::FlatBufferBuilder &b,
                                            const fbm::Module &m) {
  const auto *fb = m.fatbin();
  return makeModule(b, m, fb ? fb->data() : nullptr, fb ? fb->size() : 0,
                    m.fatbin_hash(), m.relocatable(), m.device_linked());
}

flatbuffers::Offset<fbm::Kernel>
copyKernel(flatbuffers::FlatBufferBuilder &b, const fbm::Kernel &k,
           uint32_t moduleIndex,
           const std::vector<const fbm::LaunchSite *> &extraSites,
           const std::string *name) {
  std::vector<flatbuffers::Offset<fbm::Param>> params;
  if (k.params())
    for (const fbm::Param *p : *k.params())
      params.push_back(copyParam(b, *p));
  std::vector<flatbuffers::Offset<fbm::LaunchSite>> sites;
  if (k.launch_sites())
    for (const fbm::LaunchSite *s : *k.launch_sites())
      sites.push_back(copySite(b, *s));
  for (const fbm::LaunchSite *s : extraSites)
    sites.push_back(copySite(b, *s));
  auto n = name ? b.CreateString(*name) : str(b, k.name());
  return fbm::CreateKernel(b, k.id(), n, str(b, k.demangled()), k.internal(),
                           moduleIndex, b.CreateVector(params), k.args_size(),
                           b.CreateVector(sites));
}

flatbuffers::Offset<fbm::Variable>
copyVariable(flatbuffers::FlatBufferBuilder &b, const fbm::Variable &v,
             uint32_t moduleIndex, const std::string *name) {
  auto n = name ? b.CreateString(*name) : str(b, v.name());
  return fbm::CreateVariable(b, v.id(), n, str(b, v.demangled()), v.internal(),
                             v.size(), v.kind(), moduleIndex);
}

} // namespace rc::tools
