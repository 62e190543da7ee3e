// Graphs built node by node (cudaGraphCreate, cudaGraphAdd*Node, queries,
// clones, node updates) and graphs with steps that run on the client (host
// copies, host functions), through the runtime against an in-process
// rc-server session on the host test device.
#include "graph_test_fixture.h"

using namespace rc::test;
using rc::rt::GraphNode;
using rc::rt::HostStep;

namespace {

class GraphBuildTest : public GraphRuntimeTest {
protected:
  void SetUp() override {
    GraphRuntimeTest::SetUp();
    ASSERT_EQ(rt->graphs().graphCreate(&g, 0), cudaSuccess);
  }
  cudaGraphNode_t add(GraphNode n, std::vector<cudaGraphNode_t> deps = {}) {
    cudaGraphNode_t node = nullptr;
    EXPECT_EQ(rt->graphs().graphAddNode(&node, g, deps.data(), deps.size(), n),
              cudaSuccess);
    return node;
  }
  GraphNode memsetNode(void *p, unsigned value, size_t n) {
    cudaMemsetParams mp{};
    mp.dst = p, mp.value = value, mp.elementSize = 1, mp.width = n,
    mp.height = 1;
    GraphNode node;
    EXPECT_EQ(rt->graphs().memsetNode(mp, "test", &node), cudaSuccess);
    return node;
  }
  GraphNode copyNode(void *dst, const void *src, size_t n) {
    GraphNode node;
    EXPECT_EQ(
        rt->graphs().memcpyNode(dst, src, n, cudaMemcpyDefault, "test", &node),
        cudaSuccess);
    return node;
  }
  GraphNode scaleNode(void *&p, int &n) {
    cudaKernelNodeParams kp{};
    void *args[] = {&p, &n};
    kp.gridDim = dim3(1), kp.blockDim = dim3(32), kp.kernelParams = args;
    GraphNode node;
    EXPECT_EQ(rt->graphs().kernelNode(m.scaleId, kp, "test", &node),
              cudaSuccess);
    return node;
  }
  static GraphNode hostNode(cudaHostFn_t fn, void *data) {
    GraphNode node;
    node.host = HostStep::Function;
    node.fn = fn;
    node.userData = data;
    return node;
  }
  std::vector<cudaGraphNode_t> nodes(bool roots = false) {
    size_t n = 0;
    EXPECT_EQ(rt->graphs().graphGetNodes(g, nullptr, &n, roots), cudaSuccess);
    std::vector<cudaGraphNode_t> out(n);
    EXPECT_EQ(rt->graphs().graphGetNodes(g, out.data(), &n, roots),
              cudaSuccess);
    return out;
  }
  cudaGraph_t g = nullptr;
};

// What a host node saw of host memory each time it ran.
struct Seen {
  const uint8_t *watched = nullptr;
  std::vector<std::vector<uint8_t>> copies;
};
void remember(void *data) {
  auto *seen = static_cast<Seen *>(data);
  seen->copies.emplace_back(seen->watched, seen->watched + 32);
}

// simpleCudaGraphs' shape: a host-to-device copy and a memset as roots, a
// device copy and a kernel after both, a copy back to the host, a host
// node reading it. Host memory is read and written at each launch.
TEST_F(GraphBuildTest, ClientStepsRunInOrderAtEachLaunch) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  uint8_t *b = static_cast<uint8_t *>(alloc(256));
  std::vector<uint8_t> in(16, 0x21), out(32, 0);
  Seen seen{out.data(), {}};
  int n = 32;
  void *kernelArg = a;

  cudaGraphNode_t up = add(copyNode(a, in.data(), 16));
  cudaGraphNode_t zero = add(memsetNode(b, 0x5a, 16));
  cudaGraphNode_t across = add(copyNode(b + 16, a, 16), {up, zero});
  cudaGraphNode_t kernel = add(scaleNode(kernelArg, n), {across});
  cudaGraphNode_t down = add(copyNode(out.data(), b, 32), {kernel});
  add(hostNode(remember, &seen), {down});
  EXPECT_EQ(nodes().size(), 6u);
  EXPECT_EQ(nodes(/*roots=*/true), (std::vector<cudaGraphNode_t>{up, zero}));

  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  size_t before = backend().launches().size();
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  std::fill(in.begin(), in.end(), 0x37); // read at launch, not at add
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);

  ASSERT_EQ(seen.copies.size(), 2u);
  for (int launch = 0; launch < 2; ++launch)
    for (int i = 0; i < 32; ++i)
      ASSERT_EQ(seen.copies[launch][i],
                i < 16 ? 0x5a : (launch == 0 ? 0x21 : 0x37))
          << "launch " << launch << " byte " << i;
  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), before + 2);
  EXPECT_EQ(argPointer(launches[before].args), uint64_t(uintptr_t(a)));
  EXPECT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphLaunch(e, s, false), cudaErrorInvalidValue);
}

// jacobiCudaGraphs' pattern: one instantiation, a kernel node's arguments
// swapped before each launch; only that node travels.
TEST_F(GraphBuildTest, ExecKernelNodeSetParamsSendsOneNode) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  uint8_t *b = static_cast<uint8_t *>(alloc(256));
  int n = 32;
  void *pa = a, *pb = b;
  cudaGraphNode_t zero = add(memsetNode(a, 0, 64));
  cudaGraphNode_t kernel = add(scaleNode(pa, n), {zero});
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->deviceSynchronize(), cudaSuccess);
  size_t syncOnly = 0;
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  syncOnly = conn->sizes.back();

  size_t before = backend().launches().size();
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(
        rt->graphs().graphExecNodeSet(e, kernel, scaleNode(i % 2 ? pb : pa, n)),
        cudaSuccess);
    ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
    ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
    if (i > 0) // a changed node: a small update rides with the launch
      EXPECT_LT(conn->sizes.back() - syncOnly, 250u);
  }
  auto launches = backend().launches();
  ASSERT_EQ(launches.size(), before + 4);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(argPointer(launches[before + i].args),
              uint64_t(uintptr_t(i % 2 ? b : a)))
        << i;

  // The exec's node keeps its kind; nodes of other graphs are not its own.
  EXPECT_EQ(rt->graphs().graphExecNodeSet(e, kernel, memsetNode(a, 0, 8)),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->graphs().graphExecNodeSet(e, zero, memsetNode(a, 0, 8)),
            cudaSuccess);
  cudaGraph_t other = nullptr;
  ASSERT_EQ(rt->graphs().graphCreate(&other, 0), cudaSuccess);
  cudaGraphNode_t foreign = nullptr;
  ASSERT_EQ(rt->graphs().graphAddNode(&foreign, other, nullptr, 0,
                                      memsetNode(a, 0, 8)),
            cudaSuccess);
  EXPECT_EQ(rt->graphs().graphExecNodeSet(e, foreign, memsetNode(a, 0, 8)),
            cudaErrorInvalidValue);
  EXPECT_EQ(
      rt->graphs().graphAddNode(&foreign, g, &foreign, 1, memsetNode(a, 0, 8)),
      cudaErrorInvalidValue)
      << "a dependency from another graph";
  EXPECT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphBuildTest, DependenciesDecideTheOrderAndCyclesFail) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  cudaGraphNode_t first = add(memsetNode(a, 1, 16));
  cudaGraphNode_t second = add(memsetNode(a, 2, 16));
  // second before first: the later-made node now runs first.
  ASSERT_EQ(rt->graphs().graphAddDependencies(g, &second, &first, 1),
            cudaSuccess);
  EXPECT_EQ(nodes(/*roots=*/true), std::vector<cudaGraphNode_t>{second});
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  EXPECT_EQ(read(a, 1)[0], 1);

  ASSERT_EQ(rt->graphs().graphAddDependencies(g, &first, &second, 1),
            cudaSuccess);
  cudaGraphExec_t cyclic = nullptr;
  EXPECT_EQ(rt->graphs().graphInstantiate(&cyclic, g), cudaErrorInvalidValue);
  EXPECT_EQ(rt->graphs().graphAddDependencies(g, &first, &first, 1),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphBuildTest, NodeQueriesAndClones) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  std::vector<uint8_t> host(16);
  int n = 32;
  void *pa = a;
  cudaGraphNode_t set = add(memsetNode(a, 3, 16));
  cudaGraphNode_t kernel = add(scaleNode(pa, n), {set});
  cudaGraphNode_t down = add(copyNode(host.data(), a, 16), {kernel});
  cudaGraphNode_t empty = add(GraphNode(), {down});
  cudaGraphNodeType type;
  ASSERT_EQ(rt->graphs().graphNodeGetType(set, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeMemset);
  ASSERT_EQ(rt->graphs().graphNodeGetType(kernel, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeKernel);
  ASSERT_EQ(rt->graphs().graphNodeGetType(down, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeMemcpy);
  ASSERT_EQ(rt->graphs().graphNodeGetType(empty, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeEmpty);

  // Asking for more than there is: the rest are null, the count is real.
  std::vector<cudaGraphNode_t> some(6, down);
  size_t count = some.size();
  ASSERT_EQ(rt->graphs().graphGetNodes(g, some.data(), &count, false),
            cudaSuccess);
  EXPECT_EQ(count, 4u);
  EXPECT_EQ(some[0], set);
  EXPECT_EQ(some[4], nullptr);
  count = 1;
  ASSERT_EQ(rt->graphs().graphGetNodes(g, some.data(), &count, false),
            cudaSuccess);
  EXPECT_EQ(count, 1u);

  // A clone has its own nodes; changing one leaves the original alone.
  cudaGraph_t clone = nullptr;
  ASSERT_EQ(rt->graphs().graphClone(&clone, g), cudaSuccess);
  cudaGraphNode_t cloneSet = nullptr;
  ASSERT_EQ(rt->graphs().graphNodeFindInClone(&cloneSet, set, clone),
            cudaSuccess);
  EXPECT_NE(cloneSet, set);
  EXPECT_EQ(rt->graphs().graphNodeFindInClone(&cloneSet, set, g),
            cudaErrorInvalidValue);
  ASSERT_EQ(rt->graphs().graphNodeFindInClone(&cloneSet, set, clone),
            cudaSuccess);
  ASSERT_EQ(rt->graphs().graphNodeSet(cloneSet, memsetNode(a, 9, 16)),
            cudaSuccess);
  EXPECT_EQ(rt->graphs().graphNodeSet(cloneSet, scaleNode(pa, n)),
            cudaErrorInvalidValue)
      << "a node keeps its kind";

  cudaGraphExec_t original = nullptr, cloned = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&original, g), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphInstantiate(&cloned, clone), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(cloned, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  EXPECT_EQ(host[0], 9);
  ASSERT_EQ(rt->graphs().graphLaunch(original, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  EXPECT_EQ(host[0], 3);

  // Destroying a graph ends its node handles.
  ASSERT_EQ(rt->graphs().graphDestroy(clone), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphNodeGetType(cloneSet, &type),
            cudaErrorInvalidValue);
  EXPECT_EQ(rt->graphs().graphExecDestroy(original), cudaSuccess);
  EXPECT_EQ(rt->graphs().graphExecDestroy(cloned), cudaSuccess);
}

// Nodes are checked when made, like the calls they stand for; what the
// wire cannot express fails by name, never silently.
TEST_F(GraphBuildTest, NodesAreCheckedWhenMade) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  std::vector<uint8_t> host(64);
  GraphNode node;
  EXPECT_EQ(rt->graphs().memcpyNode(a, host.data(), 512, cudaMemcpyHostToDevice,
                                    "test", &node),
            cudaErrorInvalidValue)
      << "past the allocation";
  EXPECT_EQ(rt->graphs().memcpyNode(host.data(), host.data() + 32, 16,
                                    cudaMemcpyDefault, "test", &node),
            cudaErrorNotSupported);
  cudaMemsetParams mp{};
  mp.dst = a, mp.elementSize = 4, mp.width = 4, mp.height = 1;
  mp.value = 0x01020304;
  EXPECT_EQ(rt->graphs().memsetNode(mp, "test", &node), cudaErrorNotSupported);
  mp.value = 0x7f7f7f7f; // every byte alike: a byte memset
  ASSERT_EQ(rt->graphs().memsetNode(mp, "test", &node), cudaSuccess);
  EXPECT_EQ(node.size, 16u);
  EXPECT_EQ(node.value, 0x7f);
  mp.elementSize = 3;
  EXPECT_EQ(rt->graphs().memsetNode(mp, "test", &node), cudaErrorInvalidValue);

  // cudaMemcpy3DParms of a 1D copy (simpleCudaGraphs) is one copy; pitched
  // rows are not yet.
  cudaMemcpy3DParms cp{};
  cp.srcPtr = {host.data(), 64, 64, 1};
  cp.dstPtr = {a, 64, 64, 1};
  cp.extent = {64, 1, 1};
  cp.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(rt->graphs().memcpy3DNode(cp, "test", &node), cudaSuccess);
  EXPECT_EQ(node.host, HostStep::CopyToDevice);
  EXPECT_EQ(node.size, 64u);
  cp.extent = {16, 2, 1};
  EXPECT_EQ(rt->graphs().memcpy3DNode(cp, "test", &node),
            cudaErrorNotSupported);

  int n = 32;
  void *pa = a;
  cudaKernelNodeParams kp{};
  void *args[] = {&pa, &n};
  kp.gridDim = dim3(1), kp.blockDim = dim3(4096), kp.kernelParams = args;
  EXPECT_EQ(rt->graphs().kernelNode(m.scaleId, kp, "test", &node),
            cudaErrorInvalidConfiguration);
  kp.blockDim = dim3(32);
  EXPECT_EQ(rt->graphs().kernelNode(0x1234, kp, "test", &node),
            cudaErrorInvalidDeviceFunction);
}

// Host copies and host functions on a capturing stream are nodes too
// (jacobiCudaGraphs copies its residual back inside the capture).
TEST_F(GraphBuildTest, CaptureTakesHostCopiesAndHostFunctions) {
  uint8_t *a = static_cast<uint8_t *>(alloc(256));
  std::vector<uint8_t> in(32, 0x44), out(32, 0);
  Seen seen{out.data(), {}};
  cudaGraph_t captured = capture([&] {
    ASSERT_EQ(rt->memcpy(a, in.data(), 32, cudaMemcpyDefault, s, true, false),
              cudaSuccess);
    ASSERT_EQ(rt->memset(a, 0x10, 8, s, false), cudaSuccess);
    ASSERT_EQ(
        rt->memcpy(out.data(), a, 32, cudaMemcpyDeviceToHost, s, true, false),
        cudaSuccess);
    ASSERT_EQ(rt->launchHostFunc(s, remember, &seen, false), cudaSuccess);
  });
  EXPECT_TRUE(seen.copies.empty()) << "captured, not run";
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, captured), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  ASSERT_EQ(seen.copies.size(), 1u);
  for (int i = 0; i < 32; ++i)
    ASSERT_EQ(seen.copies[0][i], i < 8 ? 0x10 : 0x44) << i;

  // A re-capture with another host buffer updates the client-side exec.
  std::vector<uint8_t> other(32, 0x66);
  cudaGraph_t again = capture([&] {
    rt->memcpy(a, other.data(), 32, cudaMemcpyDefault, s, true, false);
    rt->memset(a, 0x10, 8, s, false);
    rt->memcpy(out.data(), a, 32, cudaMemcpyDeviceToHost, s, true, false);
    rt->launchHostFunc(s, remember, &seen, false);
  });
  cudaGraphExecUpdateResultInfo info{};
  ASSERT_EQ(rt->graphs().graphExecUpdate(e, again, &info), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
  ASSERT_EQ(seen.copies.size(), 2u);
  EXPECT_EQ(seen.copies[1][31], 0x66);

  // A copy may not change between host and device memory in an update.
  cudaGraph_t deviceOnly = capture([&] {
    rt->memcpy(a + 64, a, 32, cudaMemcpyDefault, s, true, false);
    rt->memset(a, 0x10, 8, s, false);
    rt->memcpy(out.data(), a, 32, cudaMemcpyDeviceToHost, s, true, false);
    rt->launchHostFunc(s, remember, &seen, false);
  });
  ASSERT_EQ(rt->graphs().graphExecUpdate(e, deviceOnly, &info),
            cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorParametersChanged);
  EXPECT_NE(info.errorNode, nullptr);
  EXPECT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
}

} // namespace
