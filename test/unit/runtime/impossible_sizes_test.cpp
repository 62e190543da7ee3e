// Copies, memsets and allocations that cannot succeed fail at the call, as
// cudart fails them, and nothing reaches the server: a device range must
// lie inside what the runtime handed out, an allocation must fit the
// device. (An honest cudaMemcpy of (size_t)-1 bytes used to stream
// gigabytes before the server refused it.)
#include "fake_server.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace rc::test;

namespace {

constexpr size_t kHuge = SIZE_MAX;

class ImpossibleSizes : public testing::Test {
protected:
  void SetUp() override {
    rt = makeRuntime(state, quietOptions(), nullptr);
    ASSERT_EQ(rt->malloc(&d, 256), cudaSuccess);
    ASSERT_EQ(rt->malloc(&other, 256), cudaSuccess);
    ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
    commandsBefore = commandCount();
  }
  size_t commandCount() {
    std::lock_guard<std::mutex> l(state->mu);
    return state->commands.size();
  }
  // The call failed with `expected`, its message names `call` and `role`,
  // and no command was sent for it (checked after a sync that flushes
  // anything it might have batched).
  void expectRefused(cudaError_t got, cudaError_t expected,
                     const std::string &stderrText, const std::string &call,
                     const std::string &role) {
    EXPECT_EQ(got, expected);
    EXPECT_NE(stderrText.find("remote-clang: " + call + ": " + role + " range"),
              std::string::npos)
        << stderrText;
    ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
    EXPECT_EQ(copiesSent(), 0u);
  }
  // Copy and memset commands the server received since SetUp.
  size_t copiesSent() {
    using C = rc::wire::Command;
    std::lock_guard<std::mutex> l(state->mu);
    size_t n = 0;
    for (size_t i = commandsBefore; i < state->commands.size(); ++i) {
      C c = state->commands[i];
      n += c == C::MemcpyH2D || c == C::MemcpyH2DRing || c == C::MemcpyD2H ||
           c == C::MemcpyD2D || c == C::Memset;
    }
    return n;
  }

  std::shared_ptr<FakeState> state = std::make_shared<FakeState>();
  std::unique_ptr<rc::rt::Runtime> rt;
  void *d = nullptr, *other = nullptr;
  size_t commandsBefore = 0;
  std::vector<uint8_t> host = std::vector<uint8_t>(512, 1);
};

TEST_F(ImpossibleSizes, AReadBackOfSizeMaxFailsAtTheCall) {
  testing::internal::CaptureStderr();
  cudaError_t err = rt->memcpy(host.data(), d, kHuge, cudaMemcpyDeviceToHost,
                               nullptr, false, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemcpy", "source");
}

TEST_F(ImpossibleSizes, AnUploadPastTheEndFailsAndOneThatFitsWorks) {
  testing::internal::CaptureStderr();
  cudaError_t err = rt->memcpy(d, host.data(), 257, cudaMemcpyHostToDevice,
                               nullptr, true, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemcpyAsync",
                "destination");
  EXPECT_EQ(rt->memcpy(static_cast<char *>(d) + 56, host.data(), 200,
                       cudaMemcpyHostToDevice, nullptr, false, false),
            cudaSuccess);
}

TEST_F(ImpossibleSizes, ADeviceCopyMustFitOnBothSides) {
  testing::internal::CaptureStderr();
  cudaError_t err = rt->memcpy(other, static_cast<char *>(d) + 128, 256,
                               cudaMemcpyDeviceToDevice, nullptr, false, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemcpy", "source");
  testing::internal::CaptureStderr();
  err = rt->memcpy(static_cast<char *>(other) + 1, d, 256,
                   cudaMemcpyDeviceToDevice, nullptr, false, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemcpy",
                "destination");
  EXPECT_EQ(rt->memcpy(other, d, 256, cudaMemcpyDeviceToDevice, nullptr, false,
                       false),
            cudaSuccess);
}

TEST_F(ImpossibleSizes, AMemsetOutsideEveryAllocationFails) {
  testing::internal::CaptureStderr();
  cudaError_t err = rt->memset(d, 0, kHuge, nullptr, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemset",
                "destination");
  testing::internal::CaptureStderr();
  err = rt->memset(reinterpret_cast<void *>(0x10), 0, 16, nullptr, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemset",
                "destination");
}

TEST_F(ImpossibleSizes, A2DCopyIsCheckedOverAllItsRows) {
  // 4 rows of 64 bytes, 96 apart: the last row ends at 352 > 256.
  testing::internal::CaptureStderr();
  cudaError_t err = rt->memcpy2D(d, 96, host.data(), 64, 64, 4,
                                 cudaMemcpyHostToDevice, nullptr, false, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemcpy2D",
                "destination");
  testing::internal::CaptureStderr();
  err = rt->memcpy2D(host.data(), 64, d, 96, 64, 4, cudaMemcpyDeviceToHost,
                     nullptr, false, false);
  expectRefused(err, cudaErrorInvalidValue,
                testing::internal::GetCapturedStderr(), "cudaMemcpy2D",
                "source");
  // A pitch times height that overflows is refused before anything else.
  EXPECT_EQ(rt->memcpy2D(d, SIZE_MAX / 2, host.data(), 64, 64, 4,
                         cudaMemcpyHostToDevice, nullptr, false, false),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->memcpy2D(d, 64, host.data(), 64, 64, 4, cudaMemcpyHostToDevice,
                         nullptr, false, false),
            cudaSuccess);
}

TEST_F(ImpossibleSizes, AnAllocationLargerThanTheDeviceFailsAtTheCall) {
  void *p = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(rt->malloc(&p, kHuge), cudaErrorMemoryAllocation);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(rt->malloc(&p, (80ull << 30) + 1), cudaErrorMemoryAllocation)
      << "the fake device has 80 GiB";
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  std::lock_guard<std::mutex> l(state->mu);
  for (size_t i = commandsBefore; i < state->commands.size(); ++i)
    EXPECT_NE(state->commands[i], rc::wire::Command::Malloc);
}

} // namespace
