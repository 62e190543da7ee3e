// The manifest of the test module (programs/test_module.h): the kernel
// scale(float *p, int n, float f) and the variable `coeffs`, over the fatbin
// a test registers as clang's start-up code would. The integration
// programs and the in-process C API tests load it.
#ifndef RC_TEST_PROGRAM_MANIFEST_H
#define RC_TEST_PROGRAM_MANIFEST_H

#include "manifest_generated.h"
#include "programs/test_module.h"
#include "rc/fatbin.h"
#include "rc/manifest_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rc::test {

// Writes it as `dir`/`name`. Another build's manifest has the same kernels
// over other device code: `fb` says which.
inline std::string writeProgramManifest(const std::string &dir,
                                        const std::string &name,
                                        const uint8_t *fb = kTestFatbin) {
  using namespace rc::manifest;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<Param>> ps{
      CreateParamDirect(fbb, "p", "float *", 0, 8, 8, ParamKind::Pointer),
      CreateParamDirect(fbb, "n", "int", 8, 4, 4),
      CreateParamDirect(fbb, "f", "float", 12, 4, 4)};
  std::vector<flatbuffers::Offset<LaunchSite>> sites{
      CreateLaunchSiteDirect(fbb, "roundtrip.cpp", 1, 1, "chevron")};
  std::vector<flatbuffers::Offset<Kernel>> ks{CreateKernelDirect(
      fbb, kTestKernelId, kTestKernelName, "scale(float*, int, float)", false,
      0, &ps, 16, &sites)};
  std::vector<flatbuffers::Offset<Variable>> vs{CreateVariableDirect(
      fbb, kTestVarId, kTestVarName, "coeffs", false, kTestVarSize)};
  uint64_t size = rc::fatbinSize(fb);
  std::vector<uint8_t> fatbin(fb, fb + size);
  std::vector<flatbuffers::Offset<Module>> mods{CreateModuleDirect(
      fbb, "roundtrip.cpp", rc::fatbinHash(fb, size), &fatbin)};
  FinishManifestBuffer(fbb, CreateManifestDirect(fbb, 1, &mods, &ks, &vs));
  std::string path = dir + "/" + name;
  std::string error;
  EXPECT_TRUE(
      rc::writeFile(path, fbb.GetBufferPointer(), fbb.GetSize(), &error))
      << error;
  return path;
}

} // namespace rc::test

#endif
