// Small manifests built in code for the tools' unit tests.
#pragma once
#include "manifest_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rc::test {

struct K {
  uint64_t id;
  std::string name;
  std::vector<std::string> sites; // launch-site files
};

// A one-module fragment with the given kernels.
inline std::vector<uint8_t> fragment(const std::string &source,
                                     const std::vector<K> &kernels) {
  namespace fbm = rc::manifest;
  flatbuffers::FlatBufferBuilder b;
  auto mod = fbm::CreateModule(b, b.CreateString(source));
  std::vector<flatbuffers::Offset<fbm::Kernel>> ks;
  for (const K &k : kernels) {
    std::vector<flatbuffers::Offset<fbm::LaunchSite>> sites;
    for (const std::string &f : k.sites)
      sites.push_back(fbm::CreateLaunchSite(b, b.CreateString(f), 1, 1,
                                            b.CreateString("chevron")));
    ks.push_back(fbm::CreateKernel(b, k.id, b.CreateString(k.name), 0, false, 0,
                                   0, 0, b.CreateVector(sites)));
  }
  auto root = fbm::CreateManifest(b, 1, b.CreateVector(&mod, 1),
                                  b.CreateVectorOfSortedTables(&ks));
  fbm::FinishManifestBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

} // namespace rc::test
