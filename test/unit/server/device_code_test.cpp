// A kernel the host registers that no cubin defines: device code compiled
// out under `#if __CUDA_ARCH__ >= N` with empty stubs under `#else`, as
// older suites write it. nvcc's programs run until they launch such a
// kernel; so do ours: the manifest is taken, the other kernels launch, and
// launching that one fails as an invalid device function, naming it. On
// the host test device, with the real sm_90 fatbin of gpu_kernels.cu.
#include "gpu_manifest.h"
#include "rc/kernel_id.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace rc::server;
using namespace rc::server::test;

namespace {

TEST(DeviceCode, AKernelInNoCubinFailsOnlyItsOwnLaunchNamingIt) {
  setLogLevel(LogLevel::Quiet);
  GpuManifest g = writeGpuManifest("_Z7missingv");
  ServerCore core;
  ASSERT_TRUE(startOnTestDevice(core, g.path));
  auto ends = memPair();
  core.serve(std::move(ends.second));
  MemClient c{std::move(ends.first)};
  const wire::HelloReply *hr = nullptr;
  Bytes r = c.roundTrip(hello({g.hash}));
  ASSERT_NE(hr = asHelloReply(r), nullptr);
  ASSERT_TRUE(hr->ok()) << (hr->error() ? hr->error()->str() : "");

  uint64_t missing = rc::symbolId("_Z7missingv", false, "");
  r = c.roundTrip(batch(1, {cLaunch(missing, {}, 0, {1, 1, 1}, {1, 1, 1})}));
  const wire::BatchReply *br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  ASSERT_TRUE(br->errors() && br->errors()->size() == 1);
  EXPECT_EQ(br->errors()->Get(0)->code(), 98); // cudaErrorInvalidDeviceFunction
  std::string message = br->errors()->Get(0)->message()->str();
  EXPECT_NE(message.find("kernel missing() has no device code"),
            std::string::npos)
      << message;

  int tag = 7;
  Bytes args(4);
  std::memcpy(args.data(), &tag, 4);
  r = c.roundTrip(batch(2, {cLaunch(g.say, args, 0, {1, 1, 1}, {1, 1, 1})}));
  br = asBatchReply(r);
  ASSERT_NE(br, nullptr);
  EXPECT_TRUE(!br->errors() || br->errors()->size() == 0)
      << br->errors()->Get(0)->message()->str();
}

} // namespace
