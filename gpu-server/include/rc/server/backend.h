// The device behind rc-server. Two implementations, clearly apart:
//   cuda_backend.cpp  - a real GPU through the CUDA driver API (dlopen'd)
//   host_backend.cpp  - host memory behind fake device addresses, for tests
// A Backend is shared by all sessions and may have several devices; each
// session gets its own DeviceContext (its own CUDA context) on every device it
// uses, used only from that session's thread.
// The session validates every command before calling in here, so backends
// may assume handles exist and ranges lie inside the session's allocations.
#ifndef RC_SERVER_BACKEND_H
#define RC_SERVER_BACKEND_H

#include "rc/server/registry.h"
#include "rc/server/settings.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rc::server {

struct DeviceDescription {
  std::string name;
  uint64_t totalMem = 0;
  std::array<uint8_t, 16> uuid{};
  std::vector<int32_t> attributes; // indexed by CUdevice_attribute
  std::string backend;             // "cuda" or "host-test"
  std::vector<bool> canAccessPeer; // by device index (false for itself)
};

// cudaError_t numbering (rc/server/errors.h) plus what went wrong.
struct OpStatus {
  int code = 0;
  std::string detail;
  bool ok() const { return code == 0; }
  static OpStatus success() { return {}; }
  static OpStatus fail(int c, std::string d) { return {c, std::move(d)}; }
};

// Backend stream/event handle. Stream handle 0 is the legacy default stream
// and kPerThreadStream the per-thread one; anything else comes from
// streamCreate/eventCreate.
using NativeHandle = uint64_t;
constexpr NativeHandle kPerThreadStream = 2;
// streamCreate's flag for a stream that does not wait for the legacy
// stream (cudaStreamNonBlocking).
constexpr uint32_t kStreamNonBlocking = 1;
// eventCreate's flag for events that only order (cudaEventDisableTiming).
constexpr uint32_t kEventDisableTiming = 2;

struct LaunchConfig {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedMem = 0;
  NativeHandle stream = 0;
  bool cooperative = false; // grid-wide sync (co-resident grid)
  bool programmaticSerialization =
      false; // PDL: may overlap the previous kernel
};

// What cudaOccupancyMaxActiveClusters / MaxPotentialClusterSize ask of a
// launch (wire::ClusterOccupancy): its configuration, clusters of
// `cluster` blocks (all 0: the kernel's own dimension) and the
// cudaClusterSchedulingPolicy.
struct ClusterQuery {
  LaunchConfig launch;
  uint32_t cluster[3] = {0, 0, 0};
  int schedulingPolicy = 0;
  bool potentialSize = false; // the largest cluster size, not the count
};

// cudaStreamSetAttribute's value (wire::StreamAttribute says which fields
// each attribute uses); the numbers are CUstreamAttrID's.
struct StreamAttributeValue {
  int attribute = 0;
  uint64_t windowBase = 0, windowBytes = 0;
  float hitRatio = 0;
  int hitProperty = 0, missProperty = 0;
  int value = 0;
  uint8_t domainDefault = 0, domainRemote = 0;
};

class BlasContext; // src/cublas_context.h

class GraphDevice; // src/graph_device.h

class TextureDevice; // src/backend/texture_device.h

class DeviceContext {
public:
  virtual ~DeviceContext() = default;
  // Makes this context the calling thread's current one. A session with
  // several devices switches between its contexts; createContext leaves the
  // new context current.
  virtual void activate() {}
  virtual OpStatus malloc(uint64_t size, uint64_t *addr) = 0;
  virtual OpStatus free(uint64_t addr) = 0;
  virtual OpStatus copyH2D(uint64_t dst, const uint8_t *src, uint64_t size,
                           NativeHandle stream) = 0;
  // Returns after the bytes are in `dst` (the reply needs them).
  virtual OpStatus copyD2H(uint8_t *dst, uint64_t src, uint64_t size,
                           NativeHandle stream) = 0;
  // The same bytes handed to `consume` in pieces, in order, each valid only
  // during the call (CUDA: straight out of the pinned staging slot, so an RMA
  // read-back copies nothing on this side). `pieceBytes`: the piece size a
  // consumer with a cost per piece asks for (0: the context's own; CUDA
  // honours larger ones through staging of that size). Default: copyD2H
  // into a buffer, one piece.
  using ChunkConsumer =
      std::function<void(const uint8_t *data, uint64_t offset, uint64_t n)>;
  virtual OpStatus readD2H(uint64_t src, uint64_t size, NativeHandle stream,
                           const ChunkConsumer &consume,
                           uint64_t pieceBytes = 0);
  // Host memory that copies to any device of the session read directly
  // (CUDA: pinned and portable), for the session's upload ring. Defaults:
  // plain host memory, and copyH2DFromHostAlloc = copyH2D.
  virtual OpStatus hostAlloc(uint64_t size, uint8_t **host);
  virtual void hostFree(uint8_t *host);
  // Copies from memory of hostAlloc (or registered by hostRegister) without
  // staging: asynchronous on the stream, so `src` must stay untouched until
  // the stream has passed it.
  virtual OpStatus copyH2DFromHostAlloc(uint64_t dst, const uint8_t *src,
                                        uint64_t size, NativeHandle stream);
  // Host memory mapped from elsewhere (a region shared with the client,
  // shared_host.h) made reachable by DMA from every device of the session
  // (CUDA: cuMemHostRegister, portable); copyD2HRegistered then reads back
  // into it without staging, returning once the bytes are there. Defaults:
  // nothing to register, and copyD2H.
  virtual OpStatus hostRegister(uint8_t *host, uint64_t size);
  virtual void hostUnregister(uint8_t *host);
  virtual OpStatus copyD2HRegistered(uint8_t *dst, uint64_t src, uint64_t size,
                                     NativeHandle stream);
  // Into memory of hostAlloc, asynchronously on the stream (the content
  // cache's insertions: the caller waits for an event after it). Default:
  // copyD2H, which returns once the bytes are there.
  virtual OpStatus copyD2HToHostAlloc(uint8_t *dst, uint64_t src, uint64_t size,
                                      NativeHandle stream);
  virtual OpStatus copyD2D(uint64_t dst, uint64_t src, uint64_t size,
                           NativeHandle stream) = 0;
  // Between devices: `dst` in memory of dstCtx's device, `src` in srcCtx's,
  // on `stream` of this context (cudaMemcpyPeerAsync). Default: fails.
  virtual OpStatus copyPeer(uint64_t dst, DeviceContext &dstCtx, uint64_t src,
                            DeviceContext &srcCtx, uint64_t size,
                            NativeHandle stream);
  // cudaDeviceEnablePeerAccess / Disable: this device's kernels may access
  // memory of `peer`'s device. Default: fails.
  virtual OpStatus setPeerAccess(DeviceContext &peer, bool enable);
  // cudaProfilerStart / Stop: collection by a profiling tool attached to
  // the server, for this context. Default: succeeds, doing nothing, as
  // CUDA does where no tool is attached.
  virtual OpStatus setProfiling(bool start);
  // cudaDeviceSetLimit / GetLimit: a cudaLimit of this context (stack per
  // thread, printf FIFO, device malloc heap, ...); kErrInvalidValue for a
  // number that is no limit (the driver's answer). Default: fails.
  virtual OpStatus setLimit(int limit, uint64_t value);
  // cudaStreamSetAttribute (checked by the executor).
  virtual OpStatus streamSetAttribute(NativeHandle stream,
                                      const StreamAttributeValue &v);
  // cudaCtxResetPersistingL2Cache.
  virtual OpStatus resetPersistingL2();
  virtual OpStatus getLimit(int limit, uint64_t *value);
  virtual OpStatus memset(uint64_t dst, uint8_t value, uint64_t size,
                          NativeHandle stream) = 0;
  // `args` holds kernel.argsSize bytes, aligned to 16.
  virtual OpStatus launch(const KernelInfo &kernel, const LaunchConfig &cfg,
                          const uint8_t *args) = 0;
  virtual OpStatus streamCreate(uint32_t flags, int32_t priority,
                                NativeHandle *stream) = 0;
  virtual OpStatus streamDestroy(NativeHandle stream) = 0;
  virtual OpStatus streamSynchronize(NativeHandle stream) = 0;
  // code 0 when idle, kErrNotReady when work is pending.
  virtual OpStatus streamQuery(NativeHandle stream) = 0;
  virtual OpStatus deviceSynchronize() = 0;
  virtual OpStatus eventCreate(uint32_t flags, NativeHandle *event) = 0;
  virtual OpStatus eventDestroy(NativeHandle event) = 0;
  virtual OpStatus eventRecord(NativeHandle event, NativeHandle stream) = 0;
  virtual OpStatus eventSynchronize(NativeHandle event) = 0;
  virtual OpStatus eventQuery(NativeHandle event) = 0;
  virtual OpStatus eventElapsed(NativeHandle start, NativeHandle end,
                                float *ms) = 0;
  virtual OpStatus streamWaitEvent(NativeHandle stream, NativeHandle event,
                                   uint32_t flags) = 0;
  // Device address and size of a __device__/__constant__ variable in this
  // context.
  virtual OpStatus symbolAddress(const VariableInfo &var, uint64_t *addr,
                                 uint64_t *size) = 0;

  // cudaFuncSetAttribute (CUfunction_attribute numbering).
  virtual OpStatus setKernelAttribute(const KernelInfo &kernel, int attribute,
                                      int value);
  // The driver's cluster occupancy of `kernel` (cuOccupancyMaxActiveClusters
  // or, q.potentialSize, cuOccupancyMaxPotentialClusterSize) into *answer.
  // Default: fails naming the call.
  virtual OpStatus clusterOccupancy(const KernelInfo &kernel,
                                    const ClusterQuery &q, int *answer);
  // Driver VMM (cuMem*). Physical handles are backend handles; the executor
  // validates ranges and handles first. Defaults fail with "not supported".
  virtual OpStatus memAddressReserve(uint64_t size, uint64_t alignment,
                                     uint64_t *addr);
  virtual OpStatus memAddressFree(uint64_t addr, uint64_t size);
  // `compressible`: ask for generic compression; *compressed: granted.
  virtual OpStatus memCreate(uint64_t size, bool compressible,
                             NativeHandle *handle, bool *compressed);
  virtual OpStatus memRelease(NativeHandle handle);
  virtual OpStatus memMap(uint64_t addr, uint64_t size, uint64_t offset,
                          NativeHandle handle);
  virtual OpStatus memUnmap(uint64_t addr, uint64_t size);
  // Read-write access to the range for each of `devices` (backend indices).
  virtual OpStatus memSetAccess(uint64_t addr, uint64_t size,
                                const std::vector<int> &devices);

  // The address a vendor library's host API is given for session memory
  // at [addr, addr+size) (docs/libraries.md): a GPU's own address (the
  // default), the test device's host bytes behind it.
  virtual void *libraryPointer(uint64_t addr, uint64_t size) {
    (void)size;
    return reinterpret_cast<void *>(addr);
  }

  // cuBLAS of this context (src/cublas_context.h), created on first use;
  // null + *why when the backend has none (default).
  virtual BlasContext *blas(std::string *why);

  // Real CUDA graphs of this context (src/graph_device.h); null (default)
  // when the backend has none: the executor then replays a graph's nodes.
  virtual GraphDevice *graphs() { return nullptr; }

  // CUDA arrays and texture/surface objects of this context
  // (src/backend/texture_device.h), created on first use.
  virtual TextureDevice *textures() = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  // Loads every module once and resolves every kernel and variable of the
  // registry; fails naming the first symbol that does not resolve.
  virtual bool prepare(Registry &registry, std::string *error) = 0;
  virtual int deviceCount() const = 0;
  virtual const DeviceDescription &device(int index) const = 0;
  // Whether kernels on `device` can access memory of `peer` (peer access).
  virtual bool canAccessPeer(int device, int peer) const = 0;
  // A new context on device `index`, current on the calling thread.
  virtual std::unique_ptr<DeviceContext> createContext(int index,
                                                       std::string *error) = 0;
  // The calling thread no longer uses the context it made last: it made
  // it for a session that runs on another thread (WaitingContext).
  virtual void leaveContext() {}
  // Bytes currently allocated by all contexts (tests check frees).
  virtual uint64_t bytesInUse() const = 0;

  // Driver-API modules the build never saw (cuModuleLoadData,
  // docs/driver-api.md): the image (cubin, fatbin or PTX) is loaded once,
  // independent of contexts like the preloaded modules, and shared by every
  // session that loads the same bytes until the last releases it. A JIT
  // failure's log is in the error. Defaults: not supported.
  virtual OpStatus loadModule(const uint8_t *image, size_t size,
                              NativeHandle *module);
  virtual void releaseModule(NativeHandle module);
  // Kernel `name` of a loaded module: its native handle, parameter layout
  // (offsets and sizes; the image says nothing of their types) and
  // attributes.
  virtual OpStatus moduleKernel(NativeHandle module, const std::string &name,
                                KernelInfo *out);
};

// Host test device(s): no GPU needed. Launches are validated, then recorded.
std::unique_ptr<Backend> makeHostBackend(int devices = 1);
// Real GPUs through libcuda.so.1, by CUDA ordinal (empty: every visible
// GPU); nullptr + *error when unavailable.
std::unique_ptr<Backend> makeCudaBackend(const std::vector<int> &ordinals,
                                         const CudaSettings &settings,
                                         std::string *error);

} // namespace rc::server

#endif
