// The driver-surface extension on a real GPU (label gpu): kernel attributes
// from cuKernelGetAttribute, cudaFuncSetAttribute raising the dynamic shared
// memory limit, PDL and cooperative launches through cuLaunchKernelEx, and
// the VMM pool path (cuMemAddressReserve/Create/Map/SetAccess) with a kernel
// writing across two mappings. Skipped where libcuda.so.1 or a GPU is
// missing.
#include "ext_commands.h"
#include "gpu_server_fixture.h"
#include "rc/manifest_file.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <cuda.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace rc::server;
using namespace rc::server::test;
using namespace rc::server::test::ext;

namespace {

class GpuExtTest : public GpuServerTest {
protected:
  void SetUp() override {
    GpuServerTest::SetUp();
    if (!IsSkipped() && !HasFatalFailure())
      client = connect(&helloReply);
  }
  Bytes roundTrip(const Bytes &msg) { return client.roundTrip(msg); }
  // A batch that must succeed; keeps its reply alive in `last`.
  const wire::BatchReply *ok(const std::vector<Cmd> &cmds) {
    last = roundTrip(batch(++seq, cmds));
    const wire::BatchReply *br = asBatchReply(last);
    EXPECT_NE(br, nullptr);
    if (br && br->errors() && br->errors()->size())
      ADD_FAILURE() << br->errors()->Get(0)->message()->str();
    return br;
  }
  int failCode(const std::vector<Cmd> &cmds, std::string *message) {
    last = roundTrip(batch(++seq, cmds));
    const wire::BatchReply *br = asBatchReply(last);
    if (!br || !br->errors() || br->errors()->size() != 1)
      return 0;
    *message = br->errors()->Get(0)->message()->str();
    return br->errors()->Get(0)->code();
  }
  std::vector<float> readFloats(const wire::BatchReply *br, uint32_t index) {
    const wire::Result *r = resultAt(br, index);
    std::vector<float> v(r ? r->payload()->size() / 4 : 0);
    if (r)
      std::memcpy(v.data(), r->payload()->data(), v.size() * 4);
    return v;
  }
  void setFactor(float f) {
    Bytes b(4);
    std::memcpy(b.data(), &f, 4);
    ok({cSymbolWrite(g.table, 0, b)});
  }

  MemClient client;
  Bytes helloReply, last;
  uint64_t seq = 0;
};

// Driver-API modules on the GPU: PTX JIT-compiled by the server's driver
// and a fatbin, their layouts from the driver, launches that compute; a
// PTX error comes back with the JIT's words.
TEST_F(GpuExtTest, ModulesLoadedAtRunTimeLaunchAndCompute) {
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry fill(\n"
                          "  .param .u64 fill_param_0,\n"
                          "  .param .u32 fill_param_1\n)\n{\n"
                          "  .reg .b32 %r<3>;\n  .reg .b64 %rd<4>;\n"
                          "  ld.param.u64 %rd1, [fill_param_0];\n"
                          "  ld.param.u32 %r1, [fill_param_1];\n"
                          "  cvta.to.global.u64 %rd2, %rd1;\n"
                          "  mov.u32 %r2, %tid.x;\n"
                          "  mul.wide.u32 %rd3, %r2, 4;\n"
                          "  add.s64 %rd2, %rd2, %rd3;\n"
                          "  st.global.u32 [%rd2], %r1;\n  ret;\n}\n";
  const wire::BatchReply *br = ok({cMalloc(4096)});
  uint64_t buf = resultAt(br, 0)->addr();
  br = ok({cModuleLoad(1, ptx), cFunction(1, "fill", 2)});
  const wire::Result *layout = resultAt(br, 1);
  ASSERT_NE(layout, nullptr);
  ASSERT_EQ(layout->payload()->size(), 16u); // two (offset, size) pairs
  uint32_t pairs[4];
  std::memcpy(pairs, layout->payload()->data(), 16);
  EXPECT_EQ(pairs[0], 0u);
  EXPECT_EQ(pairs[1], 8u);
  EXPECT_EQ(pairs[2], 8u);
  EXPECT_EQ(pairs[3], 4u);
  // Its attributes, as the driver reports them (FunctionAttributes: what
  // cuFuncGetAttribute and the occupancy calls answer for it).
  br = ok({cFunctionAttributes(2)});
  ASSERT_EQ(resultAt(br, 0)->payload()->size(), 40u);
  int32_t attrs[10];
  std::memcpy(attrs, resultAt(br, 0)->payload()->data(), sizeof attrs);
  EXPECT_GT(attrs[0], 0) << "registers";
  EXPECT_LE(attrs[0], 255);
  EXPECT_GT(attrs[1], 0) << "threads per block";
  EXPECT_LE(attrs[1], 1024);
  EXPECT_GE(attrs[6], 75) << "binary version";
  std::printf("module kernel fill: %d registers, %d threads per block, "
              "binary version %d\n",
              attrs[0], attrs[1], attrs[6]);
  Bytes args(12);
  uint32_t value = 0x3f800000; // 1.0f
  std::memcpy(args.data(), &buf, 8);
  std::memcpy(args.data() + 8, &value, 4);
  br = ok({cLaunchFunction(2, args, {64, 1, 1}, {1, 1, 1}), cD2H(buf, 256)});
  std::vector<float> got = readFloats(br, 1);
  ASSERT_EQ(got.size(), 64u);
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(got[i], 1.0f) << i;

  // The test kernels' fatbin, loaded as a module: consume(Pair) writes its
  // tag through the pointer inside the struct.
  std::vector<uint8_t> fatbin;
  std::string err;
  const char *env = std::getenv("RC_TEST_FATBIN");
  ASSERT_TRUE(rc::readFile(env ? env : RC_TEST_FATBIN, fatbin, &err)) << err;
  br = ok({cModuleLoad(3, fatbin), cFunction(3, "_Z7consume4Pair", 4)});
  ASSERT_EQ(resultAt(br, 1)->payload()->size(), 8u); // one 16-byte struct
  br = ok({cLaunchFunction(4, consumeArgs(5, buf + 512), {32, 1, 1}, {1, 1, 1}),
           cD2H(buf + 512, 128)});
  got = readFloats(br, 1);
  ASSERT_EQ(got.size(), 32u);
  for (int i = 0; i < 32; ++i)
    ASSERT_EQ(got[i], 5.0f) << i;

  // A JIT error is the load's, with the JIT's words.
  std::string message;
  EXPECT_EQ(failCode({cModuleLoad(5, ".version 8.0\n.target sm_90\n"
                                     ".visible .entry broken() { bogus; }\n")},
                     &message),
            218) // cudaErrorInvalidPtx
      << message;
  EXPECT_NE(message.find("JIT said"), std::string::npos) << message;
  std::printf("a PTX error: %s\n", message.c_str());
  ok({cModuleUnload(1), cModuleUnload(3)});
}

TEST_F(GpuExtTest, HelloCarriesRealKernelAttributes) {
  const wire::HelloReply *hr = asHelloReply(helloReply);
  ASSERT_NE(hr->kernel_attributes(), nullptr);
  bool found = false;
  for (const wire::KernelAttributes *k : *hr->kernel_attributes()) {
    if (k->kernel_id() != g.scale)
      continue;
    found = true;
    std::printf("scale: %d regs, %d max threads, ptx %d, binary %d, %d "
                "dynamic smem max\n",
                k->num_regs(), k->max_threads_per_block(), k->ptx_version(),
                k->binary_version(), k->max_dynamic_shared_size_bytes());
    EXPECT_GT(k->num_regs(), 0);
    EXPECT_EQ(k->max_threads_per_block(), 1024);
    EXPECT_EQ(k->binary_version(), 90);
    // The virtual architecture: ggml uses PDL only when this is >= 90.
    EXPECT_EQ(k->ptx_version(), 90);
    EXPECT_EQ(k->shared_size_bytes(), 0);
  }
  EXPECT_TRUE(found);
}

TEST_F(GpuExtTest, PdlAndCooperativeLaunchesComputeCorrectly) {
  const int n = 4096;
  uint64_t buf = resultAt(ok({cMalloc(n * 4)}), 0)->addr();
  uint64_t other = resultAt(ok({cMalloc(n * 4)}), 0)->addr();
  std::vector<float> in(n, 1.0f);
  setFactor(2.0f);
  // `buf` is scaled twice (plain, then cooperative: 1 * 2^2); `other` once
  // by a PDL launch that may overlap the first (scale does not call
  // cudaGridDependencySynchronize, so it must not read what the previous
  // kernel writes: it works on its own buffer).
  const wire::BatchReply *br =
      ok({cH2D(buf, floats(in)), cH2D(other, floats(in)),
          cLaunchEx(g.scale, scaleArgs(buf, n), false, false, {16, 1, 1},
                    {256, 1, 1}),
          cLaunchEx(g.scale, scaleArgs(other, n), false, true, {16, 1, 1},
                    {256, 1, 1}),
          cLaunchEx(g.scale, scaleArgs(buf, n), true, false, {16, 1, 1},
                    {256, 1, 1}),
          cD2H(buf, n * 4), cD2H(other, n * 4)});
  std::vector<float> out = readFloats(br, 5), out2 = readFloats(br, 6);
  ASSERT_EQ(out.size(), size_t(n));
  ASSERT_EQ(out2.size(), size_t(n));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], 4.0f) << i;
    ASSERT_EQ(out2[i], 2.0f) << i;
  }
  // A cooperative grid must be co-resident: far too many blocks fail with
  // cudaErrorCooperativeLaunchTooLarge (720), not a crash.
  std::string msg;
  EXPECT_EQ(failCode({cLaunchEx(g.scale, scaleArgs(buf, n), true, false,
                                {1 << 20, 1, 1}, {1024, 1, 1})},
                     &msg),
            720)
      << msg;
}

TEST_F(GpuExtTest, FuncSetAttributeRaisesTheDynamicSharedMemoryLimit) {
  uint64_t buf = resultAt(ok({cMalloc(4096)}), 0)->addr();
  const uint32_t big = 100 * 1024;
  std::string msg;
  // Above 48 KiB the driver refuses until the attribute is raised.
  EXPECT_NE(failCode({cLaunchEx(g.consume, consumeArgs(1, buf), false, false,
                                {1, 1, 1}, {32, 1, 1}, big)},
                     &msg),
            0);
  ok({cSetAttr(g.consume, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
               int(big)),
      cLaunchEx(g.consume, consumeArgs(3, buf), false, false, {1, 1, 1},
                {32, 1, 1}, big),
      cDeviceSync()});
}

TEST_F(GpuExtTest, VmmPoolMemoryWorksForKernelsAndCopies) {
  const uint64_t gran = 2 << 20;
  uint64_t base = resultAt(ok({cReserve(64ull << 20)}), 0)->addr();
  ASSERT_NE(base, 0u);
  ok({cCreate(1, gran), cMap(base, gran, 0, 1), cRelease(1),
      cAccess(base, gran), cCreate(2, gran), cMap(base + gran, gran, 0, 2),
      cRelease(2), cAccess(base + gran, gran)});
  // 1024 floats straddling the two mappings, scaled by a kernel.
  const int n = 1024;
  uint64_t p = base + gran - 2048;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = float(i);
  setFactor(3.0f);
  const wire::BatchReply *br =
      ok({cH2D(p, floats(in)),
          cLaunch(g.scale, scaleArgs(p, n), 0, {4, 1, 1}, {256, 1, 1}),
          cD2H(p, n * 4)});
  std::vector<float> out = readFloats(br, 2);
  ASSERT_EQ(out.size(), size_t(n));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 3.0f * float(i)) << i;
  ok({cDeviceSync(), cUnmap(base, 2 * gran), cAddrFree(base, 64ull << 20)});
  EXPECT_EQ(core.bytesInUse(), 0u);
  // Left mapped at disconnect: the session frees it.
  base = resultAt(ok({cReserve(4 * gran)}), 0)->addr();
  ok({cCreate(3, gran), cMap(base, gran, 0, 3), cAccess(base, gran)});
  EXPECT_EQ(core.bytesInUse(), gran);
  client.conn.reset();
  for (int i = 0; i < 200 && core.bytesInUse() != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(core.bytesInUse(), 0u);
}

} // namespace
