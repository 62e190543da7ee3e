// GraphDevice on the CUDA driver: capture into a private stream, one
// instantiated CUgraphExec per client exec, node updates in place with
// cuGraphExec*NodeSetParams (no re-instantiation, no graph rebuild).
#include "backend/cuda/cuda_driver.h"
#include "backend/graph_device.h"
#include "rc/server/errors.h"

#include <map>
#include <vector>

namespace rc::server {

namespace {

CUstream toStream(NativeHandle h) { return reinterpret_cast<CUstream>(h); }

class CudaGraphDevice : public GraphDevice {
public:
  CudaGraphDevice(const CudaDriver &d, CUcontext ctx) : drv_(d), ctx_(ctx) {}
  ~CudaGraphDevice() override {
    // The context is destroyed right after, which frees these as well;
    // destroying them first keeps the order explicit.
    for (auto &g : graphs_) {
      drv_.cuGraphExecDestroy(reinterpret_cast<CUgraphExec>(g.first));
      drv_.cuGraphDestroy(g.second);
    }
  }

  OpStatus beginCapture(NativeHandle *stream) override {
    CUstream s = nullptr;
    // Non-blocking: the capture must not pick up implicit dependencies on
    // the session's legacy stream.
    OpStatus st =
        check(drv_.cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, 0));
    if (!st.ok())
      return st;
    st = check(drv_.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    if (!st.ok()) {
      drv_.cuStreamDestroy(s);
      return st;
    }
    *stream = reinterpret_cast<NativeHandle>(s);
    return st;
  }

  OpStatus lastNode(NativeHandle stream, NativeHandle *node) override {
    CUstreamCaptureStatus status;
    cuuint64_t id = 0;
    CUgraph graph = nullptr;
    const CUgraphNode *deps = nullptr;
    const CUgraphEdgeData *edges = nullptr;
    size_t n = 0;
    // The edge-data variant (12030): the older one fails with
    // CUDA_ERROR_LOSSY_QUERY once a PDL launch made a programmatic edge.
    OpStatus st = check(drv_.cuStreamGetCaptureInfo(
        toStream(stream), &status, &id, &graph, &deps, &edges, &n));
    if (!st.ok())
      return st;
    // A chain: after each command the capture depends on exactly its node.
    if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE || n != 1)
      return OpStatus::fail(kErrUnknown,
                            "stream capture did not produce exactly one node "
                            "for a graph node (" +
                                std::to_string(n) + " dependencies)");
    *node = reinterpret_cast<NativeHandle>(deps[0]);
    return st;
  }

  OpStatus endCapture(NativeHandle stream, bool abort,
                      NativeHandle *exec) override {
    *exec = 0;
    CUgraph graph = nullptr;
    OpStatus st = check(drv_.cuStreamEndCapture(toStream(stream), &graph));
    drv_.cuStreamDestroy(toStream(stream));
    if (!st.ok() || abort) {
      if (graph)
        drv_.cuGraphDestroy(graph);
      return st;
    }
    CUgraphExec e = nullptr;
    st = check(drv_.cuGraphInstantiateWithFlags(&e, graph, 0));
    if (!st.ok()) {
      drv_.cuGraphDestroy(graph);
      return st;
    }
    // The graph stays: its node handles address the exec's nodes.
    graphs_[reinterpret_cast<NativeHandle>(e)] = graph;
    *exec = reinterpret_cast<NativeHandle>(e);
    return st;
  }

  OpStatus launch(NativeHandle exec, NativeHandle stream) override {
    CUstream s = stream == 0                  ? nullptr
                 : stream == kPerThreadStream ? CU_STREAM_PER_THREAD
                                              : toStream(stream);
    return check(drv_.cuGraphLaunch(reinterpret_cast<CUgraphExec>(exec), s));
  }

  OpStatus setKernel(NativeHandle exec, NativeHandle node,
                     const KernelInfo &kernel, const LaunchConfig &cfg,
                     const uint8_t *args) override {
    std::vector<void *> params;
    for (const ParamInfo &p : kernel.params)
      params.push_back(const_cast<uint8_t *>(args) + p.offset);
    CUDA_KERNEL_NODE_PARAMS_v2 p{};
    p.func = nullptr; // use `kern` (a CUkernel) in this context
    p.kern = reinterpret_cast<CUkernel>(kernel.native);
    p.ctx = ctx_;
    p.gridDimX = cfg.grid[0], p.gridDimY = cfg.grid[1];
    p.gridDimZ = cfg.grid[2];
    p.blockDimX = cfg.block[0], p.blockDimY = cfg.block[1];
    p.blockDimZ = cfg.block[2];
    p.sharedMemBytes = cfg.sharedMem;
    p.kernelParams = params.empty() ? nullptr : params.data();
    // The driver copies the parameter values during the call.
    return check(drv_.cuGraphExecKernelNodeSetParams(
        reinterpret_cast<CUgraphExec>(exec),
        reinterpret_cast<CUgraphNode>(node), &p));
  }

  OpStatus setMemset(NativeHandle exec, NativeHandle node, uint64_t dst,
                     uint8_t value, uint64_t size) override {
    CUDA_MEMSET_NODE_PARAMS_v1 p{};
    p.dst = CUdeviceptr(dst);
    p.elementSize = 1;
    p.width = size;
    p.height = 1;
    p.pitch = 0;
    p.value = value;
    return check(drv_.cuGraphExecMemsetNodeSetParams(
        reinterpret_cast<CUgraphExec>(exec),
        reinterpret_cast<CUgraphNode>(node), &p, ctx_));
  }

  OpStatus setCopy(NativeHandle exec, NativeHandle node, uint64_t dst,
                   uint64_t src, uint64_t size) override {
    CUDA_MEMCPY3D_v2 p{};
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = CUdeviceptr(src);
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = CUdeviceptr(dst);
    p.WidthInBytes = size;
    p.Height = 1;
    p.Depth = 1;
    return check(drv_.cuGraphExecMemcpyNodeSetParams(
        reinterpret_cast<CUgraphExec>(exec),
        reinterpret_cast<CUgraphNode>(node), &p, ctx_));
  }

  OpStatus destroy(NativeHandle exec) override {
    auto it = graphs_.find(exec);
    OpStatus st =
        check(drv_.cuGraphExecDestroy(reinterpret_cast<CUgraphExec>(exec)));
    if (it != graphs_.end()) {
      drv_.cuGraphDestroy(it->second);
      graphs_.erase(it);
    }
    return st;
  }

private:
  OpStatus check(CUresult r) const { return drv_.status(r); }

  const CudaDriver &drv_;
  CUcontext ctx_;
  std::map<NativeHandle, CUgraph> graphs_; // exec -> its captured graph
};

} // namespace

std::unique_ptr<GraphDevice> makeCudaGraphDevice(const CudaDriver &driver,
                                                 void *context) {
  return std::make_unique<CudaGraphDevice>(driver,
                                           static_cast<CUcontext>(context));
}

} // namespace rc::server
