// rc::verifyManifestBytes, the check every manifest reader relies on
// (rc-server, the runtime, rc-link, rc-manifest): beyond the flatbuffers
// Verifier, every kernel and variable has a name and names a module that
// exists. rc-manifest verify used a variable's module index unchecked.
#include "rc/manifest_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

namespace fbm = rc::manifest;

struct Sym {
  uint32_t module;
  bool named;
};

// One module; a kernel and a variable as given.
std::vector<uint8_t> manifest(Sym kernel, Sym variable) {
  flatbuffers::FlatBufferBuilder b;
  auto mod = fbm::CreateModule(b, b.CreateString("m.cu"));
  auto kname = kernel.named ? b.CreateString("_Z1kv") : 0;
  auto vname = variable.named ? b.CreateString("v") : 0;
  std::vector<flatbuffers::Offset<fbm::Kernel>> ks = {
      fbm::CreateKernel(b, 11, kname, 0, false, kernel.module)};
  std::vector<flatbuffers::Offset<fbm::Variable>> vs = {fbm::CreateVariable(
      b, 22, vname, 0, false, 4, fbm::VarKind::Device, variable.module)};
  auto root = fbm::CreateManifest(b, 1, b.CreateVector(&mod, 1),
                                  b.CreateVectorOfSortedTables(&ks),
                                  b.CreateVector(vs));
  fbm::FinishManifestBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::string refusal(const std::vector<uint8_t> &m) {
  std::string error;
  EXPECT_FALSE(rc::verifyManifestBytes(m.data(), m.size(), &error));
  return error;
}

TEST(ManifestBytes, KernelsAndVariablesNameModulesThatExist) {
  std::vector<uint8_t> good = manifest({0, true}, {0, true});
  std::string error;
  EXPECT_TRUE(rc::verifyManifestBytes(good.data(), good.size(), &error))
      << error;
  EXPECT_EQ(refusal(manifest({1, true}, {0, true})),
            "kernel 11 names module 1, which does not exist");
  EXPECT_EQ(refusal(manifest({0, true}, {7, true})),
            "variable 22 names module 7, which does not exist");
  EXPECT_EQ(refusal(manifest({0, false}, {0, true})), "kernel 11 has no name");
  EXPECT_EQ(refusal(manifest({0, true}, {0, false})),
            "variable 22 has no name");
}

} // namespace
