// Driver-API module commands (ModuleLoad, ModuleFunction,
// FunctionAttributes, LaunchFunction, ModuleUnload) on the host test device,
// which reads PTX entry declarations for the layouts: what a client learns,
// what it may launch, and every malformed or stale request refused by name.
#include "ext_commands.h"
#include "host_session_fixture.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace rc::server;
using namespace rc::server::test;
using namespace rc::server::test::ext;

namespace {

constexpr int kInvalidValue = 1, kBadImage = 200, kBadHandle = 400,
              kNotFound = 500;

// As NVRTC writes it: a pointer, an int, and a 16-byte aligned struct.
const char kPtx[] = R"(
.version 8.4
.target sm_90
.address_size 64
.visible .entry axpy(
	.param .u64 .ptr .global .align 4 axpy_param_0,
	.param .u32 axpy_param_1,
	.param .align 16 .b8 axpy_param_2[32]
)
{
	ret;
}
.visible .entry empty()
{
	ret;
}
)";

class ModuleCommandsTest : public HostSessionTest {
protected:
  const wire::BatchReply *run(const std::vector<Cmd> &cmds) {
    last_ = send1(batch(++seq_, cmds));
    return asBatchReply(last_);
  }
  std::string bad(const std::vector<Cmd> &cmds, uint32_t index, int code) {
    ++seq_;
    return expectError(batch(seq_, cmds), index, code, seq_);
  }
  Bytes last_;
  uint64_t seq_ = 0;
};

TEST_F(ModuleCommandsTest, LayoutComesBackAndLaunchesRun) {
  open();
  const wire::BatchReply *br =
      run({cModuleLoad(5, kPtx), cFunction(5, "axpy", 9),
           cFunction(5, "empty", 10)});
  ASSERT_NE(br, nullptr);
  ASSERT_FALSE(br->errors() && br->errors()->size())
      << br->errors()->Get(0)->message()->str();
  const wire::Result *r = resultAt(br, 1);
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->payload(), nullptr);
  std::vector<uint32_t> layout(r->payload()->size() / 4);
  std::memcpy(layout.data(), r->payload()->data(), r->payload()->size());
  // (offset, size): the pointer at 0, the int at 8, the struct at 16.
  EXPECT_EQ(layout, (std::vector<uint32_t>{0, 8, 8, 4, 16, 32}));
  ASSERT_NE(resultAt(br, 2), nullptr);
  EXPECT_EQ(resultAt(br, 2)->payload()->size(), 0u) << "no parameters";

  Bytes args(48, 0);
  uint64_t p = 0x1234;
  std::memcpy(args.data(), &p, 8);
  size_t before = backend->launches().size();
  br = run({cLaunchFunction(9, args), cLaunchFunction(10, {})});
  ASSERT_FALSE(br->errors() && br->errors()->size());
  auto launches = backend->launches();
  ASSERT_EQ(launches.size(), before + 2);
  EXPECT_EQ(launches[before].kernelId, 9u);
  EXPECT_EQ(launches[before].config.grid[0], 2u);
  EXPECT_EQ(launches[before].args.size(), 48u);
}

// A module's kernel's attributes, as the backend read them at the lookup:
// what the host test device reports for every kernel.
TEST_F(ModuleCommandsTest, AttributesComeBackForAKernelLookedUp) {
  open();
  const wire::BatchReply *br = run(
      {cModuleLoad(5, kPtx), cFunction(5, "axpy", 9), cFunctionAttributes(9)});
  ASSERT_FALSE(br->errors() && br->errors()->size())
      << br->errors()->Get(0)->message()->str();
  const wire::Result *r = resultAt(br, 2);
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->payload(), nullptr);
  ASSERT_EQ(r->payload()->size(), 40u);
  int32_t a[10];
  std::memcpy(a, r->payload()->data(), sizeof a);
  EXPECT_EQ(a[0], 32) << "registers";
  EXPECT_EQ(a[1], 1024) << "threads per block";
  EXPECT_EQ(a[7], 48 * 1024) << "dynamic shared memory";
  EXPECT_NE(bad({cFunctionAttributes(12)}, 0, kBadHandle).find("function"),
            std::string::npos);
  run({cModuleUnload(5)});
  bad({cFunctionAttributes(9)}, 0, kBadHandle);
}

TEST_F(ModuleCommandsTest, BadRequestsAreRefusedByName) {
  open();
  EXPECT_NE(bad({cModuleLoad(5, "\x7f"
                                "ELF not ptx")},
                0, kBadImage)
                .find("PTX text only"),
            std::string::npos);
  run({cModuleLoad(5, kPtx), cFunction(5, "axpy", 9)});
  EXPECT_NE(bad({cModuleLoad(5, kPtx)}, 0, kInvalidValue).find("in use"),
            std::string::npos);
  EXPECT_NE(bad({cFunction(5, "nope", 11)}, 0, kNotFound).find("nope"),
            std::string::npos);
  EXPECT_NE(bad({cFunction(6, "axpy", 11)}, 0, kBadHandle).find("module"),
            std::string::npos);
  EXPECT_NE(bad({cFunction(5, "axpy", 9)}, 0, kInvalidValue).find("in use"),
            std::string::npos);
  EXPECT_NE(bad({cLaunchFunction(9, Bytes(40))}, 0, kInvalidValue)
                .find("40 bytes of arguments, the kernel takes 48"),
            std::string::npos);
  bad({cLaunchFunction(9, Bytes(48), {2048, 1, 1})}, 0, 9);
  EXPECT_NE(bad({cLaunchFunction(12, {})}, 0, kBadHandle).find("function"),
            std::string::npos);
  // Unloading ends the module's kernels.
  run({cModuleUnload(5)});
  bad({cLaunchFunction(9, Bytes(48))}, 0, kBadHandle);
  bad({cModuleUnload(5)}, 0, kBadHandle);
}

TEST_F(ModuleCommandsTest, SessionsShareOneCopyOfAnImage) {
  open();
  run({cModuleLoad(5, kPtx), cModuleLoad(6, kPtx)});
  EXPECT_EQ(backend->modulesLoaded(), 1u);
  auto other = std::make_unique<Session>(*env, 8);
  std::vector<Bytes> replies;
  Bytes h = hello({m.hash});
  other->handle(h.data(), h.size(), replies);
  Bytes b = batch(1, {cModuleLoad(5, kPtx),
                      cModuleLoad(7, "// other\n.entry x()\n{\n}\n")});
  other->handle(b.data(), b.size(), replies);
  EXPECT_EQ(backend->modulesLoaded(), 2u);
  run({cModuleUnload(5), cModuleUnload(6)});
  EXPECT_EQ(backend->modulesLoaded(), 2u) << "the other session holds it";
  other.reset(); // a session's modules go with it
  EXPECT_EQ(backend->modulesLoaded(), 0u);
}

} // namespace
