// CUDA graphs through the runtime against a real in-process rc-server
// session on the host test device (graphs replay their node list there):
// capture, instantiate, repeated launches, updates that send only what
// changed, topology checks decided locally, illegal calls during capture.
#include "graph_test_fixture.h"

using namespace rc::test;
using rc::rt::Runtime;

namespace {

TEST_F(GraphRuntimeTest, CaptureRecordsInsteadOfRunning) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  uint8_t *b = static_cast<uint8_t *>(alloc(256));
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  size_t launchesBefore = backend().launches().size();
  uint64_t sentBefore = rt->messagesSent();

  EXPECT_EQ(status(s), cudaStreamCaptureStatusNone);
  ASSERT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeRelaxed, false),
      cudaSuccess);
  EXPECT_EQ(status(s), cudaStreamCaptureStatusActive);
  unsigned long long id = 0;
  cudaStreamCaptureStatus cs;
  ASSERT_EQ(rt->graphs().streamIsCapturing(s, &cs, &id, false), cudaSuccess);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(status(nullptr), cudaStreamCaptureStatusNone) << "legacy stream";
  ASSERT_EQ(rt->memset(a, 7, 256, s, false), cudaSuccess);
  ASSERT_EQ(rt->memcpy(b, a, 128, cudaMemcpyDeviceToDevice, s, true, false),
            cudaSuccess);
  ASSERT_EQ(scale(b, 32, s), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(rt->graphs().streamEndCapture(s, &g, false), cudaSuccess);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(status(s), cudaStreamCaptureStatusNone);
  EXPECT_EQ(rt->messagesSent(), sentBefore) << "capture is local";

  // Nothing ran: the memory is untouched, no launch reached the device.
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(read(b, 4), std::vector<uint8_t>(4, 0));
  EXPECT_EQ(backend().launches().size(), launchesBefore);
  EXPECT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphDestroy(g), cudaErrorInvalidValue);
}

TEST_F(GraphRuntimeTest, InstantiateOnceLaunchManyTimes) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  uint8_t *b = static_cast<uint8_t *>(alloc(256));
  cudaGraph_t g = capture([&] {
    rt->memset(a, 0x11, 256, s, false);
    rt->memcpy(b + 64, a, 64, cudaMemcpyDeviceToDevice, s, true, false);
    scale(b, 32, s);
  });
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  size_t before = backend().launches().size();
  EXPECT_EQ(read(b + 64, 1)[0], 0) << "instantiating runs nothing";

  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  size_t syncOnly = conn->sizes.back();
  for (int i = 0; i < 5; ++i) {
    size_t sent = conn->sizes.size();
    ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
    ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
    ASSERT_EQ(conn->sizes.size(), sent + 1);
    // GraphLaunch adds a few dozen bytes to the sync's message, whatever
    // the graph's size.
    EXPECT_LE(conn->sizes.back() - syncOnly, 64u);
  }
  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), before + 5);
  for (size_t i = before; i < launches.size(); ++i) {
    EXPECT_EQ(launches[i].kernelId, m.scaleId);
    EXPECT_EQ(argPointer(launches[i].args), uint64_t(uintptr_t(b)));
  }
  std::vector<uint8_t> got = read(b, 256);
  for (int i = 0; i < 256; ++i)
    ASSERT_EQ(got[i], i >= 64 && i < 128 ? 0x11 : 0) << i;
  EXPECT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphLaunch(e, s, false), cudaErrorInvalidValue);
  EXPECT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
  EXPECT_EQ(rt->deviceSynchronize(), cudaSuccess);
}

TEST_F(GraphRuntimeTest, UpdateSendsOnlyTheChangedNodes) {
  uint8_t *a = static_cast<uint8_t *>(alloc(4096));
  uint8_t *b = static_cast<uint8_t *>(alloc(4096));
  const int kNodes = 64;
  auto body = [&](uint8_t *seventh) {
    return [&, seventh] {
      for (int i = 0; i < kNodes; ++i)
        scale(i == 7 ? seventh : a, 32, s);
    };
  };
  cudaGraph_t g1 = capture(body(a));
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g1), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  size_t instantiateBytes = conn->sizes.back();

  // Same graph captured again (a token whose pointers did not move): the
  // update is decided locally and sends nothing.
  cudaGraph_t same = capture(body(a));
  uint64_t sent = rt->messagesSent();
  cudaGraphExecUpdateResultInfo info{};
  ASSERT_EQ(rt->graphs().graphExecUpdate(e, same, &info), cudaSuccess);
  EXPECT_EQ(info.result, cudaGraphExecUpdateSuccess);
  EXPECT_EQ(rt->messagesSent(), sent);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  size_t syncOnly = conn->sizes.back();

  // One kernel argument changed: only that node travels.
  cudaGraph_t g2 = capture(body(b));
  ASSERT_EQ(rt->graphs().graphExecUpdate(e, g2, &info), cudaSuccess);
  EXPECT_EQ(info.result, cudaGraphExecUpdateSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  size_t updateBytes = conn->sizes.back() - syncOnly;
  std::printf("instantiate of %d nodes: %zu bytes; update of 1 node: %zu "
              "bytes\n",
              kNodes, instantiateBytes, updateBytes);
  EXPECT_LT(updateBytes, 200u);
  EXPECT_GT(instantiateBytes, size_t(kNodes) * 40);

  size_t before = backend().launches().size();
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), before + kNodes);
  for (int i = 0; i < kNodes; ++i)
    EXPECT_EQ(argPointer(launches[before + i].args),
              uint64_t(uintptr_t(i == 7 ? b : a)))
        << i;
  for (cudaGraph_t g : {g1, same, g2})
    EXPECT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphRuntimeTest, IncompatibleUpdatesFailLocallyLikeCuda) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  cudaGraph_t g = capture([&] {
    scale(a, 32, s);
    rt->memset(a, 1, 16, s, false);
  });
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  uint64_t sent = rt->messagesSent();

  cudaGraph_t longer = capture([&] {
    scale(a, 32, s);
    rt->memset(a, 1, 16, s, false);
    scale(a, 32, s);
  });
  cudaGraphExecUpdateResultInfo info{};
  EXPECT_EQ(rt->graphs().graphExecUpdate(e, longer, &info),
            cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);

  cudaGraph_t swapped = capture([&] {
    rt->memset(a, 1, 16, s, false);
    scale(a, 32, s);
  });
  EXPECT_EQ(rt->graphs().graphExecUpdate(e, swapped, &info),
            cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorNodeTypeChanged);
  EXPECT_EQ(rt->messagesSent(), sent) << "decided without a round trip";

  // The exec is unchanged and still runs its original nodes.
  size_t before = backend().launches().size();
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  EXPECT_EQ(backend().launches().size(), before + 1);
  EXPECT_EQ(read(a, 1)[0], 1);
}

TEST_F(GraphRuntimeTest, IllegalCallsDuringCaptureInvalidateIt) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));

  ASSERT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeRelaxed, false),
      cudaSuccess);
  EXPECT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeRelaxed, false),
      cudaErrorIllegalState);
  ASSERT_EQ(scale(a, 32, s), cudaSuccess);
  EXPECT_EQ(rt->streams().streamSynchronize(s, false),
            cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(status(s), cudaStreamCaptureStatusInvalidated);
  EXPECT_EQ(scale(a, 32, s), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t g = reinterpret_cast<cudaGraph_t>(1);
  EXPECT_EQ(rt->graphs().streamEndCapture(s, &g, false),
            cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(g, nullptr);
  EXPECT_EQ(status(s), cudaStreamCaptureStatusNone);

  // Stream callbacks are not graph nodes (CUDA too refuses them); device
  // sync is never legal.
  ASSERT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeGlobal, false),
      cudaSuccess);
  auto callback = [](cudaStream_t, cudaError_t, void *) {};
  EXPECT_EQ(rt->streamAddCallback(s, callback, nullptr, 0, false),
            cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(rt->graphs().streamEndCapture(s, &g, false),
            cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeGlobal, false),
      cudaSuccess);
  EXPECT_EQ(rt->deviceSynchronize(), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(status(s), cudaStreamCaptureStatusInvalidated);
  EXPECT_EQ(rt->graphs().streamEndCapture(s, &g, false),
            cudaErrorStreamCaptureInvalidated);

  // Neither the legacy stream nor a stream that is not capturing.
  EXPECT_EQ(rt->graphs().streamBeginCapture(nullptr,
                                            cudaStreamCaptureModeGlobal, false),
            cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(rt->graphs().streamEndCapture(s, &g, false), cudaErrorIllegalState);

  // None of the refused work ran; the stream works normally again.
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  EXPECT_EQ(backend().launches().size(), 0u);
  EXPECT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
}

TEST_F(GraphRuntimeTest, StreamsJoinACaptureThroughEvents) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  cudaStream_t s2;
  cudaEvent_t fork, join;
  ASSERT_EQ(rt->streams().streamCreate(&s2, 0, 0), cudaSuccess);
  ASSERT_EQ(rt->streams().eventCreate(&fork, cudaEventDisableTiming),
            cudaSuccess);
  ASSERT_EQ(rt->streams().eventCreate(&join, cudaEventDisableTiming),
            cudaSuccess);

  ASSERT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeRelaxed, false),
      cudaSuccess);
  ASSERT_EQ(rt->memset(a, 3, 64, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().eventRecord(fork, s, false), cudaSuccess);
  EXPECT_EQ(rt->streams().eventQuery(fork), cudaErrorCapturedEvent);
  ASSERT_EQ(rt->streams().streamWaitEvent(s2, fork, 0, false), cudaSuccess);
  EXPECT_EQ(status(s2), cudaStreamCaptureStatusActive);
  ASSERT_EQ(
      rt->memcpy(a + 64, a, 64, cudaMemcpyDeviceToDevice, s2, true, false),
      cudaSuccess);
  ASSERT_EQ(rt->streams().eventRecord(join, s2, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamWaitEvent(s, join, 0, false), cudaSuccess);
  cudaGraph_t g = nullptr;
  EXPECT_EQ(rt->graphs().streamEndCapture(s2, &g, false),
            cudaErrorStreamCaptureUnmatched);
  ASSERT_EQ(rt->graphs().streamEndCapture(s, &g, false), cudaSuccess);
  EXPECT_EQ(status(s2), cudaStreamCaptureStatusNone);

  cudaGraphExec_t e;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  std::vector<uint8_t> got = read(a, 128);
  EXPECT_EQ(got, std::vector<uint8_t>(128, 3));
}

TEST_F(GraphRuntimeTest, ServerValidatesNodesAtInstantiate) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  // A pointer into no allocation: the server refuses the node, and the
  // error surfaces at the next synchronization, naming it.
  cudaGraph_t g = capture([&] {
    scale(a, 32, s);
    scale(reinterpret_cast<void *>(0x1234), 32, s);
  });
  cudaGraphExec_t e;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt->deviceSynchronize(), cudaErrorInvalidValue);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cudaGraphInstantiate"), std::string::npos) << err;
  EXPECT_NE(err.find("node 1"), std::string::npos) << err;
}

// A cuBLAS GEMM issued on a capturing stream (ggml captures its whole compute
// graph) becomes a node and runs at every launch; a call that is no graph
// node is refused and invalidates the capture, as CUDA does.
TEST_F(GraphRuntimeTest, GemmsAreCapturedAsNodes) {
  // C (2x2) = A (2x3) * B (3x2), column-major, on the host test device.
  const float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, 2, 1, 0, 1};
  void *a = alloc(sizeof A), *b = alloc(sizeof B), *c = alloc(16);
  ASSERT_EQ(
      rt->memcpy(a, A, sizeof A, cudaMemcpyHostToDevice, nullptr, false, false),
      cudaSuccess);
  ASSERT_EQ(
      rt->memcpy(b, B, sizeof B, cudaMemcpyHostToDevice, nullptr, false, false),
      cudaSuccess);
  ASSERT_EQ(rt->libraries().appendCommand(
                rc::wire::Command::CublasCreate, "cublasCreate_v2", nullptr,
                [](flatbuffers::FlatBufferBuilder &fbb, uint64_t) {
                  return rc::wire::CreateCublasCreate(fbb, 1).Union();
                }),
            cudaSuccess);
  auto gemm = [&](float alpha) {
    auto p = [](void *q) { return uint64_t(uintptr_t(q)); };
    return [=](flatbuffers::FlatBufferBuilder &fbb, uint64_t stream) {
      float beta = 0;
      auto al = fbb.CreateVector(reinterpret_cast<const uint8_t *>(&alpha), 4);
      auto be = fbb.CreateVector(reinterpret_cast<const uint8_t *>(&beta), 4);
      rc::wire::CublasOperand oa(p(a), 2, 0, 0), ob(p(b), 3, 0, 0),
          oc(p(c), 2, 0, 0);
      return rc::wire::CreateCublasGemm(fbb, rc::wire::CublasGemmApi::Sgemm, 1,
                                        stream, 0, 0, 0, 2, 2, 3, al, be, &oa,
                                        &ob, &oc, 1, 68, -1)
          .Union();
    };
  };
  cudaGraph_t g = capture([&] {
    EXPECT_EQ(rt->memset(c, 0xFF, 16, s, false), cudaSuccess);
    EXPECT_EQ(rt->libraries().appendCommand(rc::wire::Command::CublasGemm,
                                            "cublasSgemm", s, gemm(2)),
              cudaSuccess);
  });
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  std::vector<uint8_t> before = read(c, 16);
  EXPECT_EQ(before, std::vector<uint8_t>(16, 0)) << "capturing runs nothing";
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  std::vector<uint8_t> got = read(c, 16);
  float C[4];
  std::memcpy(C, got.data(), 16);
  // 2 * A * B with A = [1 3 5; 2 4 6] and B's columns (1 0 2), (1 0 1).
  EXPECT_EQ(C[0], 2 * (1 + 5 * 2));
  EXPECT_EQ(C[1], 2 * (2 + 6 * 2));
  EXPECT_EQ(C[2], 2 * (1 + 5));
  EXPECT_EQ(C[3], 2 * (2 + 6));

  ASSERT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeRelaxed, false),
      cudaSuccess);
  // TRSM is no graph node (the command table's graphNode column).
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt->libraries().appendCommand(
                rc::wire::Command::CublasTrsmBatched, "cublasStrsmBatched", s,
                [](flatbuffers::FlatBufferBuilder &fbb, uint64_t stream) {
                  return rc::wire::CreateCublasTrsmBatched(fbb, 1, stream, 0, 0,
                                                           0, 0, 0, 1, 1, 1, 0,
                                                           1, 0, 1, 0)
                      .Union();
                }),
            cudaErrorStreamCaptureUnsupported);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cublasStrsmBatched"), std::string::npos) << err;
  cudaGraph_t invalid = nullptr;
  EXPECT_EQ(rt->graphs().streamEndCapture(s, &invalid, false),
            cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
}

} // namespace
