#include "gpu_manifest.h"

#include "manifest_generated.h"
#include "rc/fatbin.h"
#include "rc/kernel_id.h"
#include "rc/manifest_file.h"

#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

namespace rc::server::test {

namespace fb = flatbuffers;
namespace mf = rc::manifest;

// Writes a manifest around the real fatbin; `extraKernel` adds a kernel that
// is not in the fatbin (start-up must then fail naming it).
GpuManifest writeGpuManifest(const char *extraKernel) {
  GpuManifest g;
  std::vector<uint8_t> fatbin;
  std::string err;
  // RC_TEST_FATBIN in the environment: when the test is carried elsewhere.
  const char *env = std::getenv("RC_TEST_FATBIN");
  if (!readFile(env ? env : RC_TEST_FATBIN, fatbin, &err))
    throw std::runtime_error(err);
  // objcopy pads the section; the fatbin itself says how long it is.
  uint64_t size = fatbinSize(fatbin.data(), fatbin.size());
  if (!size)
    throw std::runtime_error("not a fatbin: " RC_TEST_FATBIN);
  fatbin.resize(size);
  g.scale = symbolId("_Z5scalePfi", false, "");
  g.consume = symbolId("_Z7consume4Pair", false, "");
  g.spin = symbolId("_Z4spinx", false, "");
  g.say = symbolId("_Z3sayi", false, "");
  g.check = symbolId("_Z5checki", false, "");
  g.table = symbolId("gTable", false, "");

  fb::FlatBufferBuilder fbb;
  std::vector<fb::Offset<mf::Module>> modules = {mf::CreateModuleDirect(
      fbb, "gpu_kernels.cu", fatbinHash(fatbin.data(), fatbin.size()),
      &fatbin)};
  std::vector<fb::Offset<mf::Param>> scaleParams = {
      mf::CreateParamDirect(fbb, "p", "float *", 0, 8, 8,
                            mf::ParamKind::Pointer),
      mf::CreateParamDirect(fbb, "n", "int", 8, 4, 4, mf::ParamKind::Value)};
  std::vector<uint32_t> ptrAt8 = {8};
  std::vector<fb::Offset<mf::Param>> consumeParams = {mf::CreateParamDirect(
      fbb, "s", "Pair", 0, 16, 8, mf::ParamKind::Aggregate, &ptrAt8)};
  std::vector<fb::Offset<mf::Param>> spinParams = {mf::CreateParamDirect(
      fbb, "cycles", "long long", 0, 8, 8, mf::ParamKind::Value)};
  std::vector<fb::Offset<mf::Param>> sayParams = {
      mf::CreateParamDirect(fbb, "tag", "int", 0, 4, 4, mf::ParamKind::Value)};
  std::vector<fb::Offset<mf::Param>> checkParams = {mf::CreateParamDirect(
      fbb, "failing", "int", 0, 4, 4, mf::ParamKind::Value)};
  std::vector<fb::Offset<mf::LaunchSite>> sites = {
      mf::CreateLaunchSiteDirect(fbb, "gpu_test.cpp", 1, 1, "chevron")};
  std::vector<fb::Offset<mf::Kernel>> kernels = {
      mf::CreateKernelDirect(fbb, g.scale, "_Z5scalePfi", "scale(float*, int)",
                             false, 0, &scaleParams, 16, &sites),
      mf::CreateKernelDirect(fbb, g.consume, "_Z7consume4Pair", "consume(Pair)",
                             false, 0, &consumeParams, 16),
      mf::CreateKernelDirect(fbb, g.spin, "_Z4spinx", "spin(long long)", false,
                             0, &spinParams, 8),
      mf::CreateKernelDirect(fbb, g.say, "_Z3sayi", "say(int)", false, 0,
                             &sayParams, 4),
      mf::CreateKernelDirect(fbb, g.check, "_Z5checki", "check(int)", false, 0,
                             &checkParams, 4, &sites)};
  if (extraKernel)
    kernels.push_back(
        mf::CreateKernelDirect(fbb, symbolId(extraKernel, false, ""),
                               extraKernel, "missing()", false, 0, nullptr, 0));
  std::vector<fb::Offset<mf::Variable>> vars = {mf::CreateVariableDirect(
      fbb, g.table, "gTable", "gTable", false, 64, mf::VarKind::Constant, 0)};
  fbb.Finish(mf::CreateManifestDirect(fbb, 1, &modules, &kernels, &vars),
             "RCMF");
  char dir[] = "/tmp/rc-server-gpu-XXXXXX";
  if (!mkdtemp(dir))
    throw std::runtime_error("mkdtemp");
  g.path = std::string(dir) + "/gpu.rcm";
  if (!writeFile(g.path, fbb.GetBufferPointer(), fbb.GetSize(), &err))
    throw std::runtime_error(err);
  g.hash = fnv1a64(fbb.GetBufferPointer(), fbb.GetSize());
  return g;
}

} // namespace rc::server::test
