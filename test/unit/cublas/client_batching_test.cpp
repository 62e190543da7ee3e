// librc_cudart's side of cuBLAS (runtime/cublas/cublas_bridge.cpp) against
// the in-process fake server: cuBLAS commands join the batch in program
// order with the other async work and cost no message of their own; an
// unknown stream fails at the call.
#include "api/global.h"
#include "fake_server.h"
#include "rc_cublas_abi.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace rc::test;
namespace wire = rc::wire;

namespace {

class CublasClient : public ::testing::Test {
protected:
  void SetUp() override {
    state = std::make_shared<FakeState>();
    auto rt = makeRuntime(state, quietOptions(), nullptr);
    runtime = rt.get();
    rc::rt::installRuntimeForTest(std::move(rt));
  }
  void TearDown() override { rc::rt::installRuntimeForTest(nullptr); }

  RcCublasGemm gemm(float alpha) {
    RcCublasGemm g{};
    g.call = "cublasGemmEx";
    g.api = int32_t(wire::CublasGemmApi::GemmEx);
    g.handle = 7;
    g.mathMode = 3;
    g.transA = 1, g.m = 4, g.n = 2, g.k = 3;
    std::memcpy(g.alpha, &alpha, 4);
    g.scalarSize = 4;
    g.a = {0x1000, 3, 0, 0}, g.b = {0x2000, 3, 0, 0}, g.c = {0x3000, 4, 0, 0};
    g.batchCount = 1, g.computeType = 68, g.algo = 99;
    return g;
  }

  std::shared_ptr<FakeState> state;
  rc::rt::Runtime *runtime = nullptr;
};

TEST_F(CublasClient, CommandsAreBatchedWithoutARoundTrip) {
  cudaStream_t s;
  ASSERT_EQ(runtime->streams().streamCreate(&s, 0, 0), cudaSuccess);
  ASSERT_EQ(__rc_cublas_create(7), cudaSuccess);
  ASSERT_EQ(__rc_cublas_set_workspace(7, 0x5000, 4096), cudaSuccess);
  RcCublasGemm g = gemm(0.5f);
  g.stream = s;
  for (int i = 0; i < 50; ++i)
    ASSERT_EQ(__rc_cublas_gemm(&g), cudaSuccess);
  RcCublasTrsm t{};
  t.handle = 7, t.side = 1, t.uplo = 1, t.m = 2, t.n = 2, t.alpha = 1;
  t.lda = 2, t.ldb = 2, t.batchCount = 1;
  ASSERT_EQ(__rc_cublas_trsm_batched(&t), cudaSuccess);
  RcCublasLu lu{};
  lu.call = "cublasDgetrfBatched";
  lu.handle = 7, lu.type = 1, lu.n = 4, lu.lda = 4, lu.batchCount = 2;
  lu.a = 0x6000, lu.info = 0x7000;
  ASSERT_EQ(__rc_cublas_lu_batched(&lu), cudaSuccess);
  ASSERT_EQ(__rc_cublas_destroy(7), cudaSuccess);
  EXPECT_EQ(runtime->messagesSent(), 0u) << "cuBLAS calls must not send";
  ASSERT_EQ(runtime->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(runtime->messagesSent(), 1u);
  EXPECT_EQ(runtime->roundTrips(), 1u);
  std::lock_guard<std::mutex> l(state->mu);
  std::vector<wire::Command> want = {wire::Command::StreamCreate,
                                     wire::Command::CublasCreate,
                                     wire::Command::CublasSetWorkspace};
  want.insert(want.end(), 50, wire::Command::CublasGemm);
  want.push_back(wire::Command::CublasTrsmBatched);
  want.push_back(wire::Command::CublasLuBatched);
  want.push_back(wire::Command::CublasDestroy);
  want.push_back(wire::Command::DeviceSynchronize);
  EXPECT_EQ(state->commands, want);
}

TEST_F(CublasClient, UnknownStreamFailsAtTheCall) {
  RcCublasGemm g = gemm(1);
  g.stream = reinterpret_cast<void *>(0x4242);
  EXPECT_EQ(__rc_cublas_gemm(&g), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(runtime->messagesSent(), 0u);
}

} // namespace
