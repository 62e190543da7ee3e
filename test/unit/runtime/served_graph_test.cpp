// Graph calls served since docs/api-coverage.md counts them, called as a
// program calls them, against an in-process rc-server session on a host
// test device (which runs memsets and copies for real and records
// launches and event records): node parameters and edges read back, child
// graphs, event and symbol copy nodes, nodes taken out and turned off,
// what capture has made so far, instantiation's answers, user objects.
#include "served_api_fixture.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace rc::test {
namespace {

class ServedGraphTest : public ServedApiTest {
protected:
  // A graph with one node setting `bytes` bytes at `dst` to `value`.
  cudaGraph_t memsetGraph(void *dst, int value, size_t bytes,
                          cudaGraphNode_t *node = nullptr) {
    cudaGraph_t g = nullptr;
    EXPECT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
    cudaMemsetParams m = {dst, 0, unsigned(value), 1, bytes, 1};
    cudaGraphNode_t n = nullptr;
    EXPECT_EQ(cudaGraphAddMemsetNode(&n, g, nullptr, 0, &m), cudaSuccess);
    if (node)
      *node = n;
    return g;
  }
  void launch(cudaGraph_t g) {
    cudaGraphExec_t e = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(e, nullptr), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
  }
};

TEST_F(ServedGraphTest, NodeParametersReadBack) {
  float *d = static_cast<float *>(deviceBuffer(256));
  int n = 64;
  float f = 2.5f;
  void *args[] = {&d, &n, &f};
  cudaKernelNodeParams k = {
      const_cast<void *>(stub), dim3(4), dim3(32), 128, args, nullptr};
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t kernel = nullptr, copy = nullptr, set = nullptr;
  ASSERT_EQ(cudaGraphAddKernelNode(&kernel, g, nullptr, 0, &k), cudaSuccess);
  cudaKernelNodeParams got = {};
  ASSERT_EQ(cudaGraphKernelNodeGetParams(kernel, &got), cudaSuccess);
  EXPECT_EQ(got.func, stub);
  EXPECT_EQ(got.gridDim.x, 4u);
  EXPECT_EQ(got.blockDim.x, 32u);
  EXPECT_EQ(got.sharedMemBytes, 128u);
  EXPECT_EQ(*static_cast<float **>(got.kernelParams[0]), d);
  EXPECT_EQ(*static_cast<int *>(got.kernelParams[1]), 64);
  EXPECT_EQ(*static_cast<float *>(got.kernelParams[2]), 2.5f);

  std::vector<uint8_t> host(64, 1);
  ASSERT_EQ(cudaGraphAddMemcpyNode1D(&copy, g, &kernel, 1, d, host.data(), 64,
                                     cudaMemcpyHostToDevice),
            cudaSuccess);
  cudaMemcpy3DParms c = {};
  ASSERT_EQ(cudaGraphMemcpyNodeGetParams(copy, &c), cudaSuccess);
  EXPECT_EQ(c.srcPtr.ptr, host.data());
  EXPECT_EQ(c.dstPtr.ptr, d);
  EXPECT_EQ(c.extent.width, 64u);
  EXPECT_EQ(c.kind, cudaMemcpyHostToDevice);

  cudaMemsetParams m = {d, 0, 0x2a, 1, 32, 1};
  ASSERT_EQ(cudaGraphAddMemsetNode(&set, g, &copy, 1, &m), cudaSuccess);
  cudaMemsetParams gotSet = {};
  ASSERT_EQ(cudaGraphMemsetNodeGetParams(set, &gotSet), cudaSuccess);
  EXPECT_EQ(gotSet.dst, d);
  EXPECT_EQ(gotSet.value, 0x2au);
  EXPECT_EQ(gotSet.width * gotSet.elementSize, 32u);
  EXPECT_EQ(cudaGraphKernelNodeGetParams(set, &got), cudaErrorInvalidValue)
      << "not a kernel node";

  auto fn = [](void *) {};
  cudaHostNodeParams h = {fn, &n};
  cudaGraphNode_t hostNode = nullptr;
  ASSERT_EQ(cudaGraphAddHostNode(&hostNode, g, nullptr, 0, &h), cudaSuccess);
  cudaHostNodeParams gotHost = {};
  ASSERT_EQ(cudaGraphHostNodeGetParams(hostNode, &gotHost), cudaSuccess);
  EXPECT_EQ(gotHost.fn, h.fn);
  EXPECT_EQ(gotHost.userData, &n);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
}

TEST_F(ServedGraphTest, EdgesBothWaysRemovedAndNodesTakenOut) {
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t a, b, c;
  ASSERT_EQ(cudaGraphAddEmptyNode(&a, g, nullptr, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEmptyNode(&b, g, &a, 1), cudaSuccess);
  cudaGraphNode_t ab[] = {a, b};
  ASSERT_EQ(cudaGraphAddEmptyNode(&c, g, ab, 2), cudaSuccess);
  size_t count = 0;
  ASSERT_EQ(cudaGraphGetEdges(g, nullptr, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 3u);
  cudaGraphNode_t from[4], to[4];
  cudaGraphEdgeData data[4];
  std::memset(data, 0xff, sizeof data);
  count = 4;
  ASSERT_EQ(cudaGraphGetEdges_v2(g, from, to, data, &count), cudaSuccess);
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(from[3], nullptr) << "what was not filled is null";
  EXPECT_EQ(data[0].type, cudaGraphDependencyTypeDefault);
  EXPECT_EQ(from[0], a);
  EXPECT_EQ(to[0], b);

  cudaGraphNode_t deps[2];
  count = 2;
  ASSERT_EQ(cudaGraphNodeGetDependencies(c, deps, &count), cudaSuccess);
  EXPECT_EQ(count, 2u);
  count = 0;
  ASSERT_EQ(cudaGraphNodeGetDependentNodes(a, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 2u) << "b and c wait for a";
  count = 2;
  ASSERT_EQ(cudaGraphNodeGetDependentNodes_v2(b, deps, data, &count),
            cudaSuccess);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(deps[0], c);

  ASSERT_EQ(cudaGraphRemoveDependencies(g, &a, &c, 1), cudaSuccess);
  EXPECT_EQ(cudaGraphRemoveDependencies(g, &a, &c, 1), cudaErrorInvalidValue)
      << "no such edge any more";
  count = 0;
  ASSERT_EQ(cudaGraphGetEdges(g, nullptr, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 2u);

  cudaGraphEdgeData programmatic = {};
  programmatic.type = cudaGraphDependencyTypeProgrammatic;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGraphAddDependencies_v2(g, &a, &c, &programmatic, 1),
            cudaErrorNotSupported);
  testing::internal::GetCapturedStderr();

  ASSERT_EQ(cudaGraphDestroyNode(b), cudaSuccess);
  count = 0;
  ASSERT_EQ(cudaGraphGetNodes(g, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 2u);
  ASSERT_EQ(cudaGraphGetEdges(g, nullptr, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 0u) << "b's edges went with it";
  cudaGraphNodeType type;
  EXPECT_EQ(cudaGraphNodeGetType(b, &type), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphNodeGetType(c, &type), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaGetLastError();
}

// A child graph runs where its node is; its exec's nodes take a new
// child's parameters.
TEST_F(ServedGraphTest, ChildGraphsRunInPlace) {
  uint8_t *d = static_cast<uint8_t *>(deviceBuffer(64));
  ASSERT_EQ(cudaMemset(d, 0, 64), cudaSuccess);
  cudaGraph_t child = memsetGraph(d, 5, 32);
  cudaGraph_t parent = nullptr;
  ASSERT_EQ(cudaGraphCreate(&parent, 0), cudaSuccess);
  cudaGraphNode_t first = nullptr, node = nullptr, last = nullptr;
  cudaMemsetParams before = {d + 32, 0, 1, 1, 32, 1};
  ASSERT_EQ(cudaGraphAddMemsetNode(&first, parent, nullptr, 0, &before),
            cudaSuccess);
  ASSERT_EQ(cudaGraphAddChildGraphNode(&node, parent, &first, 1, child),
            cudaSuccess);
  cudaMemsetParams after = {d + 32, 0, 9, 1, 16, 1};
  ASSERT_EQ(cudaGraphAddMemsetNode(&last, parent, &node, 1, &after),
            cudaSuccess);
  cudaGraphNodeType type;
  ASSERT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeGraph);
  cudaGraph_t inner = nullptr;
  ASSERT_EQ(cudaGraphChildGraphNodeGetGraph(node, &inner), cudaSuccess);
  EXPECT_NE(inner, child) << "the node holds a copy";
  size_t count = 0;
  ASSERT_EQ(cudaGraphGetNodes(inner, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 1u);
  ASSERT_EQ(cudaGraphDestroy(child), cudaSuccess);

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, parent, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  std::vector<uint8_t> got = readBack(d, 64);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(got[i], i < 32 ? 5 : i < 48 ? 9 : 1) << i;

  cudaGraph_t other = memsetGraph(d, 7, 32);
  ASSERT_EQ(cudaGraphExecChildGraphNodeSetParams(exec, node, other),
            cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  got = readBack(d, 64);
  EXPECT_EQ(got[0], 7);
  cudaGraph_t empty = nullptr;
  ASSERT_EQ(cudaGraphCreate(&empty, 0), cudaSuccess);
  EXPECT_EQ(cudaGraphExecChildGraphNodeSetParams(exec, node, empty),
            cudaErrorInvalidValue)
      << "another topology";
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(parent), cudaSuccess);
  cudaGetLastError();
}

// Event nodes are the stream calls they stand for, made when the graph
// runs.
TEST_F(ServedGraphTest, EventNodesRecordAndWaitWhenTheGraphRuns) {
  cudaEvent_t e1 = nullptr, e2 = nullptr;
  ASSERT_EQ(cudaEventCreate(&e1), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&e2), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t record = nullptr, wait = nullptr;
  ASSERT_EQ(cudaGraphAddEventRecordNode(&record, g, nullptr, 0, e1),
            cudaSuccess);
  ASSERT_EQ(cudaGraphAddEventWaitNode(&wait, g, &record, 1, e1), cudaSuccess);
  cudaEvent_t got = nullptr;
  ASSERT_EQ(cudaGraphEventRecordNodeGetEvent(record, &got), cudaSuccess);
  EXPECT_EQ(got, e1);
  ASSERT_EQ(cudaGraphEventWaitNodeSetEvent(wait, e2), cudaSuccess);
  ASSERT_EQ(cudaGraphEventWaitNodeGetEvent(wait, &got), cudaSuccess);
  EXPECT_EQ(got, e2);
  EXPECT_EQ(cudaGraphEventWaitNodeGetEvent(record, &got),
            cudaErrorInvalidValue);
  cudaGraphNodeType type;
  ASSERT_EQ(cudaGraphNodeGetType(record, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeEventRecord);

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphExecEventRecordNodeSetEvent(exec, record, e2),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  uint64_t records = backend().eventRecords(), waits = backend().streamWaits();
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(backend().eventRecords(), records + 1);
  EXPECT_EQ(backend().streamWaits(), waits + 1);
  EXPECT_EQ(cudaEventQuery(e2), cudaSuccess);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaGetLastError();
}

TEST_F(ServedGraphTest, CopiesToAndFromSymbols) {
  std::vector<uint8_t> in(kTestVarSize), out(kTestVarSize, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(3 * i + 1);
  uint8_t *d = static_cast<uint8_t *>(deviceBuffer(kTestVarSize));
  ASSERT_EQ(cudaMemcpy(d, in.data(), in.size(), cudaMemcpyHostToDevice),
            cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t to = nullptr, from = nullptr;
  ASSERT_EQ(cudaGraphAddMemcpyNodeToSymbol(&to, g, nullptr, 0, coeffsShadow, d,
                                           kTestVarSize, 0,
                                           cudaMemcpyDeviceToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, out.data(),
                                             coeffsShadow, 16, 8,
                                             cudaMemcpyDefault),
            cudaSuccess);
  EXPECT_EQ(cudaGraphAddMemcpyNodeToSymbol(&to, g, nullptr, 0, coeffsShadow, d,
                                           kTestVarSize, 1,
                                           cudaMemcpyDeviceToDevice),
            cudaErrorInvalidValue)
      << "past the symbol's end";
  launch(g);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(out[i], in[8 + i]) << i;
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaGetLastError();
}

TEST_F(ServedGraphTest, DisabledNodesDoNothing) {
  uint8_t *d = static_cast<uint8_t *>(deviceBuffer(16));
  ASSERT_EQ(cudaMemset(d, 0, 16), cudaSuccess);
  cudaGraphNode_t node = nullptr;
  cudaGraph_t g = memsetGraph(d, 3, 16, &node);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphNodeSetEnabled(exec, node, 0), cudaSuccess);
  unsigned enabled = 1;
  ASSERT_EQ(cudaGraphNodeGetEnabled(exec, node, &enabled), cudaSuccess);
  EXPECT_EQ(enabled, 0u);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  EXPECT_EQ(readBack(d, 16)[0], 0) << "turned off";
  ASSERT_EQ(cudaGraphNodeSetEnabled(exec, node, 1), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  EXPECT_EQ(readBack(d, 16)[15], 3);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
}

TEST_F(ServedGraphTest, InstantiationParamsFlagsUploadAndDot) {
  void *d = deviceBuffer(16);
  cudaGraph_t g = memsetGraph(d, 1, 16);
  cudaGraphInstantiateParams p = {};
  p.flags =
      cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiateWithParams(&exec, g, &p), cudaSuccess);
  EXPECT_EQ(p.result_out, cudaGraphInstantiateSuccess);
  unsigned long long flags = 0;
  ASSERT_EQ(cudaGraphExecGetFlags(exec, &flags), cudaSuccess);
  EXPECT_EQ(flags, p.flags);
  EXPECT_EQ(cudaGraphUpload(exec, nullptr), cudaSuccess);
  EXPECT_EQ(cudaGraphUpload(reinterpret_cast<cudaGraphExec_t>(0x77), nullptr),
            cudaErrorInvalidValue);
  testing::internal::CaptureStderr();
  p.flags = cudaGraphInstantiateFlagDeviceLaunch;
  EXPECT_EQ(cudaGraphInstantiateWithParams(&exec, g, &p),
            cudaErrorNotSupported);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.result_out, cudaGraphInstantiateNodeOperationNotSupported);

  std::string path = "/tmp/rc-graph-" + std::to_string(getpid()) + ".dot";
  ASSERT_EQ(
      cudaGraphDebugDotPrint(g, path.c_str(), cudaGraphDebugDotFlagsVerbose),
      cudaSuccess);
  std::ifstream f(path);
  std::stringstream dot;
  dot << f.rdbuf();
  std::remove(path.c_str());
  EXPECT_NE(dot.str().find("digraph"), std::string::npos) << dot.str();
  EXPECT_NE(dot.str().find("memset"), std::string::npos) << dot.str();
  EXPECT_NE(dot.str().find("16 bytes"), std::string::npos) << dot.str();
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaGetLastError();
}

TEST_F(ServedGraphTest, KernelNodeAttributes) {
  float *d = static_cast<float *>(deviceBuffer(256));
  int n = 64;
  float f = 1;
  void *args[] = {&d, &n, &f};
  cudaKernelNodeParams k = {
      const_cast<void *>(stub), dim3(1), dim3(32), 0, args, nullptr};
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaGraphAddKernelNode(&a, g, nullptr, 0, &k), cudaSuccess);
  ASSERT_EQ(cudaGraphAddKernelNode(&b, g, nullptr, 0, &k), cudaSuccess);
  cudaKernelNodeAttrValue v = {};
  v.cooperative = 1;
  ASSERT_EQ(
      cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeCooperative, &v),
      cudaSuccess);
  ASSERT_EQ(cudaGraphKernelNodeCopyAttributes(b, a), cudaSuccess);
  cudaKernelNodeAttrValue got = {};
  ASSERT_EQ(
      cudaGraphKernelNodeGetAttribute(b, cudaLaunchAttributeCooperative, &got),
      cudaSuccess);
  EXPECT_EQ(got.cooperative, 1);
  ASSERT_EQ(
      cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, &got),
      cudaSuccess);
  EXPECT_EQ(got.priority, 0) << "unset";
  v = {};
  v.priority = 3;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributePriority, &v),
            cudaErrorNotSupported);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaGetLastError();
}

// ---- capture
// --------------------------------------------------------------------

TEST_F(ServedGraphTest, CaptureInfoAndItsDependencies) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  void *d = deviceBuffer(64);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  size_t count = 9;
  ASSERT_EQ(cudaStreamGetCaptureInfo_v2(s, &status, nullptr, nullptr, nullptr,
                                        &count),
            cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  EXPECT_EQ(count, 0u);

  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal),
            cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 1, 64, s), cudaSuccess);
  unsigned long long id = 0;
  cudaGraph_t graph = nullptr;
  const cudaGraphNode_t *deps = nullptr;
  const cudaGraphEdgeData *edges = nullptr;
  ASSERT_EQ(cudaStreamGetCaptureInfo_v3(s, &status, &id, &graph, &deps, &edges,
                                        &count),
            cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  EXPECT_NE(id, 0u);
  EXPECT_NE(graph, nullptr);
  ASSERT_EQ(count, 1u);
  ASSERT_NE(edges, nullptr);
  EXPECT_EQ(edges[0].type, cudaGraphDependencyTypeDefault);
  cudaGraphNodeType type;
  ASSERT_EQ(cudaGraphNodeGetType(deps[0], &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeMemset);

  // The next node depends on nothing: it is a second root.
  ASSERT_EQ(cudaStreamUpdateCaptureDependencies(
                s, nullptr, 0, cudaStreamSetCaptureDependencies),
            cudaSuccess);
  ASSERT_EQ(
      cudaStreamGetCaptureInfo_v2(s, &status, nullptr, nullptr, &deps, &count),
      cudaSuccess);
  EXPECT_EQ(count, 0u);
  ASSERT_EQ(cudaMemsetAsync(d, 2, 32, s), cudaSuccess);
  cudaGraph_t captured = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &captured), cudaSuccess);
  EXPECT_EQ(captured, graph);
  ASSERT_EQ(cudaGraphGetRootNodes(captured, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(cudaGraphDestroy(captured), cudaSuccess);
  EXPECT_EQ(cudaStreamUpdateCaptureDependencies(s, nullptr, 0, 0),
            cudaErrorIllegalState)
      << "not capturing";
  cudaGetLastError();
}

TEST_F(ServedGraphTest, CaptureIntoAnExistingGraph) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  void *d = deviceBuffer(64);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t first = nullptr;
  ASSERT_EQ(cudaGraphAddEmptyNode(&first, g, nullptr, 0), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCaptureToGraph(s, g, &first, nullptr, 1,
                                          cudaStreamCaptureModeGlobal),
            cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 4, 64, s), cudaSuccess);
  cudaGraph_t out = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &out), cudaSuccess);
  EXPECT_EQ(out, g);
  cudaGraphNode_t nodes[2];
  size_t count = 2;
  ASSERT_EQ(cudaGraphGetNodes(g, nodes, &count), cudaSuccess);
  ASSERT_EQ(count, 2u);
  cudaGraphNode_t dep = nullptr;
  count = 1;
  ASSERT_EQ(cudaGraphNodeGetDependencies(nodes[1], &dep, &count), cudaSuccess);
  EXPECT_EQ(dep, first);
  launch(g);
  EXPECT_EQ(readBack(d, 64)[63], 4);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
}

// ---- user objects
// ---------------------------------------------------------------

int destroyed = 0;
void destroyObject(void *p) { destroyed += *static_cast<int *>(p); }

TEST_F(ServedGraphTest, UserObjectsGoWithTheirLastReference) {
  static int one = 1;
  destroyed = 0;
  cudaUserObject_t object = nullptr;
  ASSERT_EQ(cudaUserObjectCreate(&object, &one, destroyObject, 2,
                                 cudaUserObjectNoDestructorSync),
            cudaSuccess);
  EXPECT_EQ(cudaUserObjectCreate(&object, &one, destroyObject, 1, 0),
            cudaErrorInvalidValue)
      << "CUDA requires cudaUserObjectNoDestructorSync";
  cudaGraph_t g = memsetGraph(deviceBuffer(16), 0, 16);
  // The graph takes one reference of the program's two.
  ASSERT_EQ(cudaGraphRetainUserObject(g, object, 1, cudaGraphUserObjectMove),
            cudaSuccess);
  ASSERT_EQ(cudaUserObjectRelease(object, 1), cudaSuccess);
  EXPECT_EQ(destroyed, 0) << "the graph holds one";
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g), cudaSuccess);
  EXPECT_EQ(destroyed, 0) << "the exec holds one";
  ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(destroyed, 1);

  ASSERT_EQ(cudaUserObjectCreate(&object, &one, destroyObject, 1,
                                 cudaUserObjectNoDestructorSync),
            cudaSuccess);
  cudaGraph_t h = memsetGraph(deviceBuffer(16), 0, 16);
  ASSERT_EQ(cudaGraphRetainUserObject(h, object, 2, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphReleaseUserObject(h, object, 1), cudaSuccess);
  EXPECT_EQ(cudaGraphReleaseUserObject(h, object, 5), cudaErrorInvalidValue);
  ASSERT_EQ(cudaUserObjectRetain(object, 1), cudaSuccess);
  ASSERT_EQ(cudaUserObjectRelease(object, 2), cudaSuccess);
  EXPECT_EQ(destroyed, 1);
  ASSERT_EQ(cudaGraphDestroy(h), cudaSuccess);
  EXPECT_EQ(destroyed, 2);
  cudaGetLastError();
}

} // namespace
} // namespace rc::test
