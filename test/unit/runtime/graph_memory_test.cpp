// Graph memory nodes (cudaGraphAddMemAllocNode / MemFreeNode, and
// cudaMallocAsync / cudaFreeAsync in a stream capture): the address is
// fixed when the node is made, launches use it, and the memory is freed
// for real once nothing holds the node and the program freed it. Through
// the runtime against an in-process rc-server session on the test device.
#include "graph_test_fixture.h"

using namespace rc::test;
using rc::rt::GraphNode;

namespace {

class GraphMemoryTest : public GraphRuntimeTest {
protected:
  // Bytes of device memory this client holds (cudaMemGetInfo's view).
  size_t used() {
    size_t freeBytes = 0, total = 0;
    EXPECT_EQ(rt->memGetInfo(&freeBytes, &total), cudaSuccess);
    return total - freeBytes;
  }
  cudaGraphNode_t allocNode(cudaGraph_t g, size_t bytes, void **dptr,
                            std::vector<cudaGraphNode_t> deps = {}) {
    cudaMemAllocNodeParams p{};
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location = {cudaMemLocationTypeDevice, 0};
    p.bytesize = bytes;
    GraphNode n;
    EXPECT_EQ(rt->graphs().graphMemAllocNode(&p, "test", &n), cudaSuccess);
    *dptr = p.dptr;
    return add(g, std::move(n), deps);
  }
  cudaGraphNode_t freeNode(cudaGraph_t g, void *dptr,
                           std::vector<cudaGraphNode_t> deps = {}) {
    GraphNode n;
    EXPECT_EQ(rt->graphs().graphMemFreeNode(dptr, &n), cudaSuccess);
    return add(g, std::move(n), deps);
  }
  cudaGraphNode_t add(cudaGraph_t g, GraphNode n,
                      std::vector<cudaGraphNode_t> deps = {}) {
    cudaGraphNode_t node = nullptr;
    EXPECT_EQ(rt->graphs().graphAddNode(&node, g, deps.data(), deps.size(), n),
              cudaSuccess);
    return node;
  }
  cudaGraph_t newGraph() {
    cudaGraph_t g = nullptr;
    EXPECT_EQ(rt->graphs().graphCreate(&g, 0), cudaSuccess);
    return g;
  }
};

// graphMemoryNodes' explicit graph: alloc, use, copy out, free; the graph
// destroyed after instantiation, the exec launched twice.
TEST_F(GraphMemoryTest, AllocateUseAndFreeInOneGraph) {
  size_t before = used();
  cudaGraph_t g = newGraph();
  void *d = nullptr;
  cudaGraphNode_t a = allocNode(g, 4096, &d);
  ASSERT_NE(d, nullptr);
  cudaMemsetParams mp{};
  mp.dst = d, mp.value = 0x3c, mp.elementSize = 1, mp.width = 4096,
  mp.height = 1;
  GraphNode set;
  ASSERT_EQ(rt->graphs().memsetNode(mp, "test", &set), cudaSuccess);
  cudaGraphNode_t fill = add(g, set, {a});
  std::vector<uint8_t> out(4096, 0);
  GraphNode copy;
  ASSERT_EQ(rt->graphs().memcpyNode(out.data(), d, 4096, cudaMemcpyDeviceToHost,
                                    "test", &copy),
            cudaSuccess);
  cudaGraphNode_t down = add(g, copy, {fill});
  cudaGraphNode_t f = freeNode(g, d, {down});

  cudaGraphNodeType type;
  ASSERT_EQ(rt->graphs().graphNodeGetType(a, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeMemAlloc);
  ASSERT_EQ(rt->graphs().graphNodeGetType(f, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeMemFree);
  cudaMemAllocNodeParams got{};
  ASSERT_EQ(rt->graphs().graphMemoryNodeParams(a, &got, nullptr), cudaSuccess);
  EXPECT_EQ(got.dptr, d);
  EXPECT_EQ(got.bytesize, 4096u);
  void *freed = nullptr;
  ASSERT_EQ(rt->graphs().graphMemoryNodeParams(f, nullptr, &freed),
            cudaSuccess);
  EXPECT_EQ(freed, d);
  EXPECT_EQ(rt->graphs().graphMemoryNodeParams(a, nullptr, &freed),
            cudaErrorInvalidValue)
      << "not a free node";

  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
  EXPECT_GE(used(), before + 4096) << "the exec still holds the node";
  for (int launch = 0; launch < 2; ++launch) {
    std::fill(out.begin(), out.end(), 0);
    ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
    ASSERT_EQ(rt->streams().streamSynchronize(s, false), cudaSuccess);
    EXPECT_EQ(out, std::vector<uint8_t>(4096, 0x3c)) << "launch " << launch;
  }
  ASSERT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
  EXPECT_EQ(used(), before) << "freed with the last holder";
}

// Memory a graph leaves allocated outlives it and its exec until the
// program frees it: by a free node of another graph, or by cudaFree.
TEST_F(GraphMemoryTest, MemoryLeftLiveIsFreedByTheProgram) {
  size_t before = used();
  cudaGraph_t g = newGraph();
  void *d = nullptr;
  allocNode(g, 1 << 16, &d);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, g), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
  EXPECT_EQ(used(), before + (1 << 16)) << "live: the program still uses it";
  ASSERT_EQ(rt->memset(d, 1, 16, s, false), cudaSuccess);
  EXPECT_EQ(read(d, 2), (std::vector<uint8_t>{1, 1}));

  cudaGraph_t freeing = newGraph();
  freeNode(freeing, d);
  cudaGraphExec_t fe = nullptr;
  ASSERT_EQ(rt->graphs().graphInstantiate(&fe, freeing), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(fe, s, false), cudaSuccess);
  EXPECT_EQ(used(), before) << "freed by the free node's launch";
  ASSERT_EQ(rt->graphs().graphExecDestroy(fe), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphDestroy(freeing), cudaSuccess);

  // cudaFree of memory an exec may allocate again keeps it for that exec.
  cudaGraph_t again = newGraph();
  void *d2 = nullptr;
  allocNode(again, 4096, &d2);
  ASSERT_EQ(rt->graphs().graphInstantiate(&e, again), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->free(d2), cudaSuccess);
  EXPECT_EQ(used(), before + 4096);
  ASSERT_EQ(rt->graphs().graphLaunch(e, s, false), cudaSuccess);
  ASSERT_EQ(rt->free(d2), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphExecDestroy(e), cudaSuccess);
  ASSERT_EQ(rt->graphs().graphDestroy(again), cudaSuccess);
  EXPECT_EQ(used(), before);
  uint64_t current = 1;
  ASSERT_EQ(rt->graphs().graphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent,
                                           &current, false),
            cudaSuccess);
  EXPECT_EQ(current, 0u);
}

// cudaMallocAsync and cudaFreeAsync in a capture become the same nodes.
TEST_F(GraphMemoryTest, CapturedStreamOrderedAllocation) {
  size_t before = used();
  void *d = nullptr;
  cudaGraph_t g = capture([&] {
    ASSERT_EQ(rt->mallocAsync(&d, 512, s), cudaSuccess);
    ASSERT_EQ(rt->memset(d, 7, 512, s, false), cudaSuccess);
    ASSERT_EQ(rt->freeAsync(d, s), cudaSuccess);
  });
  size_t count = 0;
  ASSERT_EQ(rt->graphs().graphGetNodes(g, nullptr, &count, false), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  ASSERT_EQ(rt->graphs().graphGetNodes(g, nodes.data(), &count, false),
            cudaSuccess);
  std::vector<cudaGraphNodeType> types;
  for (cudaGraphNode_t n : nodes) {
    cudaGraphNodeType t;
    ASSERT_EQ(rt->graphs().graphNodeGetType(n, &t), cudaSuccess);
    types.push_back(t);
  }
  EXPECT_EQ(types, (std::vector<cudaGraphNodeType>{cudaGraphNodeTypeMemAlloc,
                                                   cudaGraphNodeTypeMemset,
                                                   cudaGraphNodeTypeMemFree}));
  uint64_t current = 0;
  ASSERT_EQ(rt->graphs().graphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent,
                                           &current, false),
            cudaSuccess);
  EXPECT_EQ(current, 512u);
  uint64_t zero = 0, high = 0;
  EXPECT_EQ(rt->graphs().graphMemAttribute(0, cudaGraphMemAttrUsedMemHigh,
                                           &zero, true),
            cudaSuccess);
  EXPECT_EQ(rt->graphs().graphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent,
                                           &zero, true),
            cudaErrorInvalidValue);
  ASSERT_EQ(rt->graphs().graphMemAttribute(0, cudaGraphMemAttrUsedMemHigh,
                                           &high, false),
            cudaSuccess);
  EXPECT_EQ(high, 512u);

  // Freeing plain memory inside a capture is refused by name.
  void *plain = alloc(64);
  ASSERT_EQ(
      rt->graphs().streamBeginCapture(s, cudaStreamCaptureModeRelaxed, false),
      cudaSuccess);
  EXPECT_EQ(rt->freeAsync(plain, s), cudaErrorNotSupported);
  cudaGraph_t dropped = nullptr;
  rt->graphs().streamEndCapture(s, &dropped, false);
  if (dropped)
    rt->graphs().graphDestroy(dropped);
  ASSERT_EQ(rt->free(plain), cudaSuccess);

  ASSERT_EQ(rt->graphs().graphDestroy(g), cudaSuccess);
  EXPECT_EQ(used(), before);
}

} // namespace
