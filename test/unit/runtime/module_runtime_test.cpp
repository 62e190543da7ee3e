// Driver-API modules through the runtime against an in-process rc-server
// session on the host test device (which reads PTX entry declarations):
// load, look up, launch with kernelParams and with `extra`, and the errors
// each call reports itself.
#include "in_process_runtime.h"

#include <gtest/gtest.h>

#include <cstring>

namespace st = rc::server::test;

namespace {

const char kPtx[] = ".version 8.4\n.target sm_90\n.address_size 64\n"
                    ".visible .entry scale2(\n"
                    "  .param .u64 .ptr .global .align 4 scale2_param_0,\n"
                    "  .param .f64 scale2_param_1,\n"
                    "  .param .u32 scale2_param_2\n)\n{\n  ret;\n}\n";

class ModuleRuntimeTest : public st::InProcessRuntimeTest {};

TEST_F(ModuleRuntimeTest, LoadLookUpAndLaunch) {
  uint64_t module = 0, function = 0;
  ASSERT_EQ(rt->kernels().moduleLoad(kPtx, sizeof kPtx, &module), cudaSuccess);
  uint64_t trips = rt->roundTrips();
  ASSERT_EQ(rt->kernels().moduleFunction(module, "scale2", &function),
            cudaSuccess);
  EXPECT_EQ(rt->roundTrips(), trips + 1) << "layout and attributes together";
  // Its attributes came with it (FunctionAttributes): what the host test
  // device reports for every kernel.
  cudaFuncAttributes a;
  ASSERT_EQ(rt->kernels().funcGetAttributes(&a, function), cudaSuccess);
  EXPECT_EQ(a.numRegs, 32);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  int blocks = 0;
  ASSERT_EQ(
      rt->kernels().occupancyMaxActiveBlocks(&blocks, function, 256, 0, 0),
      cudaSuccess);
  EXPECT_EQ(blocks, 8);
  void *p = deviceAlloc(256);
  double factor = 2.5;
  unsigned n = 64;
  void *params[] = {&p, &factor, &n};
  size_t before = backend().launches().size();
  ASSERT_EQ(rt->kernels().launchFunction(function, dim3(4), dim3(64), 0,
                                         nullptr, params, nullptr),
            cudaSuccess);

  // The same arguments packed by the caller (CU_LAUNCH_PARAM_BUFFER_*).
  uint8_t packed[20] = {};
  std::memcpy(packed, &p, 8);
  std::memcpy(packed + 8, &factor, 8);
  std::memcpy(packed + 16, &n, 4);
  size_t size = sizeof packed;
  void *extra[] = {reinterpret_cast<void *>(1), packed,
                   reinterpret_cast<void *>(2), &size, nullptr};
  ASSERT_EQ(rt->kernels().launchFunction(function, dim3(4), dim3(64), 0,
                                         nullptr, nullptr, extra),
            cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), before + 2);
  for (size_t i = before; i < launches.size(); ++i) {
    ASSERT_EQ(launches[i].args.size(), 20u);
    EXPECT_EQ(std::memcmp(launches[i].args.data(), packed, 20), 0);
    EXPECT_EQ(launches[i].config.block[0], 64u);
  }
  EXPECT_EQ(rt->kernels().moduleUnload(module), cudaSuccess);
  EXPECT_EQ(rt->kernels().launchFunction(function, dim3(1), dim3(1), 0, nullptr,
                                         params, nullptr),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(rt->kernels().funcGetAttributes(&a, function),
            cudaErrorInvalidDeviceFunction)
      << "its attributes went with the module";
}

TEST_F(ModuleRuntimeTest, ErrorsAreTheCallsOwn) {
  uint64_t module = 0, function = 0;
  const char notPtx[] = "\x7f"
                        "ELF?";
  EXPECT_EQ(rt->kernels().moduleLoad(notPtx, sizeof notPtx, &module),
            cudaErrorInvalidKernelImage);
  ASSERT_EQ(rt->kernels().moduleLoad(kPtx, sizeof kPtx, &module), cudaSuccess);
  EXPECT_EQ(rt->kernels().moduleFunction(module, "missing", &function),
            cudaErrorSymbolNotFound);
  EXPECT_EQ(rt->kernels().moduleFunction(module + 1000, "scale2", &function),
            cudaErrorInvalidResourceHandle);
  ASSERT_EQ(rt->kernels().moduleFunction(module, "scale2", &function),
            cudaSuccess);
  EXPECT_EQ(rt->kernels().launchFunction(function, dim3(1), dim3(1), 0, nullptr,
                                         nullptr, nullptr),
            cudaErrorInvalidValue)
      << "parameters and nothing to fill them";
  void *p = nullptr;
  void *params[] = {&p, nullptr, nullptr};
  EXPECT_EQ(rt->kernels().launchFunction(function, dim3(1), dim3(1), 0, nullptr,
                                         params, nullptr),
            cudaErrorInvalidValue);
  // Nothing was launched; the session is fine.
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

} // namespace
