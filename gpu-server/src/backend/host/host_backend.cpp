// Host test device (see host_backend.h). Everything runs synchronously on the
// session's thread, so streams are just names and events are timestamps.
#include "rc/server/host_backend.h"
#include "backend/cublas_context.h"
#include "backend/host/module_host.h"
#include "backend/module_library.h"
#include "backend/texture_device.h"
#include "rc/server/errors.h"

#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include <sys/mman.h>

namespace rc::server {

namespace {

constexpr size_t kMaxLaunchRecords = 1 << 16;

void setAttr(std::vector<int32_t> &a, CUdevice_attribute which, int32_t v) {
  if (size_t(which) < a.size())
    a[size_t(which)] = v;
}

// Plausible Hopper-like numbers, so clients compute occupancy and pick code
// paths as they would on an H100.
std::vector<int32_t> hostAttributes() {
  std::vector<int32_t> a(CU_DEVICE_ATTRIBUTE_MAX, 0);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 233472);
  setAttr(a, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024);
  setAttr(a, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 65536);
  setAttr(a, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_PITCH, 2147483647);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2619000);
  setAttr(a, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120);
  setAttr(a, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 52428800);
  setAttr(a, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 512);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, 1 << 28);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32);
  setAttr(a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9);
  setAttr(a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 2);
  setAttr(a, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 1);
  // What an H100 reports of its coupling to its own host (HMM on, set to
  // exclusive-process mode for one serving process) and of driver features:
  // the client runtime replaces these with what a client on another
  // machine gets (runtime/src/core/device_props.cpp), so the test device
  // must not already agree with it.
  setAttr(a, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE,
          CU_COMPUTEMODE_EXCLUSIVE_PROCESS);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
          1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, 100);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT, 4);
  setAttr(a, CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED, 1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_NUMA_ID, -1);
  setAttr(a, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, 0);
  return a;
}

KernelAttrs hostKernelAttrs() {
  KernelAttrs k;
  k.numRegs = 32;
  k.maxThreadsPerBlock = 1024;
  k.sharedSizeBytes = 0;
  k.constSizeBytes = 0;
  k.localSizeBytes = 0;
  // The virtual architecture (compute_90), not the PTX ISA version: ggml
  // enables PDL only for kernels with ptxVersion >= 90.
  k.ptxVersion = 90;
  k.binaryVersion = 90;
  k.maxDynamicSharedSizeBytes = 48 * 1024; // until cudaFuncSetAttribute
  k.preferredCarveout = -1;
  return k;
}

using Clock = std::chrono::steady_clock;

struct HostEvent {
  uint32_t flags = 0;
  bool recorded = false;
  Clock::time_point when;
};

struct Block {
  uint8_t *host = nullptr;
  uint64_t size = 0;
};

class HostContext : public DeviceContext {
public:
  HostContext(HostBackend &b, int device) : backend_(b), device_(device) {}
  ~HostContext() override {
    for (auto &kv : blocks_)
      drop(kv.second);
    for (auto &kv : symbols_)
      drop(kv.second);
    for (auto &kv : vaRanges_)
      munmap(kv.second.host, kv.second.size);
    for (auto &kv : physical_)
      backend_.release(kv.second);
  }

  OpStatus malloc(uint64_t size, uint64_t *addr) override {
    if (size == 0) { // cudaMalloc(0) succeeds with a null pointer
      *addr = 0;
      return OpStatus::success();
    }
    Block b;
    b.size = size;
    uint64_t fake = backend_.reserve(size);
    // calloc leaves untouched pages unmapped, so big test buffers are cheap.
    if (fake)
      b.host = static_cast<uint8_t *>(std::calloc(1, size));
    if (!fake || !b.host) {
      if (fake)
        backend_.release(size);
      return OpStatus::fail(kErrMemoryAllocation, "out of memory allocating " +
                                                      std::to_string(size) +
                                                      " bytes");
    }
    blocks_[fake] = b;
    *addr = fake;
    return OpStatus::success();
  }

  OpStatus free(uint64_t addr) override {
    auto it = blocks_.find(addr);
    if (it == blocks_.end())
      return OpStatus::fail(kErrInvalidValue, "not an allocation");
    drop(it->second);
    blocks_.erase(it);
    return OpStatus::success();
  }

  OpStatus copyH2D(uint64_t dst, const uint8_t *src, uint64_t size,
                   NativeHandle) override {
    uint8_t *p = resolve(dst, size);
    if (!p)
      return outside(dst, size);
    std::memcpy(p, src, size);
    return OpStatus::success();
  }
  OpStatus copyD2H(uint8_t *dst, uint64_t src, uint64_t size,
                   NativeHandle) override {
    const uint8_t *p = resolve(src, size);
    if (!p)
      return outside(src, size);
    std::memcpy(dst, p, size);
    return OpStatus::success();
  }
  OpStatus readD2H(uint64_t src, uint64_t size, NativeHandle,
                   const ChunkConsumer &consume, uint64_t) override {
    const uint8_t *p = resolve(src, size);
    if (!p)
      return outside(src, size);
    consume(p, 0, size);
    return OpStatus::success();
  }
  OpStatus copyD2D(uint64_t dst, uint64_t src, uint64_t size,
                   NativeHandle) override {
    uint8_t *d = resolve(dst, size);
    const uint8_t *s = resolve(src, size);
    if (!d || !s)
      return outside(d ? src : dst, size);
    std::memmove(d, s, size);
    return OpStatus::success();
  }
  // Each context holds its own device's memory: look up both sides.
  OpStatus copyPeer(uint64_t dst, DeviceContext &dstCtx, uint64_t src,
                    DeviceContext &srcCtx, uint64_t size,
                    NativeHandle) override {
    uint8_t *d = static_cast<HostContext &>(dstCtx).resolve(dst, size);
    const uint8_t *s = static_cast<HostContext &>(srcCtx).resolve(src, size);
    if (!d || !s)
      return outside(d ? src : dst, size);
    std::memmove(d, s, size);
    return OpStatus::success();
  }
  OpStatus setPeerAccess(DeviceContext &, bool) override {
    return OpStatus::success(); // nothing executes: access is not checked
  }
  OpStatus memset(uint64_t dst, uint8_t value, uint64_t size,
                  NativeHandle) override {
    uint8_t *p = resolve(dst, size);
    if (!p)
      return outside(dst, size);
    std::memset(p, value, size);
    return OpStatus::success();
  }

  OpStatus launch(const KernelInfo &kernel, const LaunchConfig &cfg,
                  const uint8_t *args) override {
    LaunchRecord r;
    r.device = device_;
    r.kernelId = kernel.id;
    r.config = cfg;
    r.args.assign(args, args + kernel.argsSize);
    backend_.record(std::move(r));
    return OpStatus::success();
  }

  OpStatus streamCreate(uint32_t, int32_t priority, NativeHandle *s) override {
    backend_.recordStreamCreate(priority);
    *s = nextHandle_++;
    return OpStatus::success();
  }
  OpStatus streamDestroy(NativeHandle) override { return OpStatus::success(); }
  OpStatus streamSynchronize(NativeHandle) override {
    backend_.recordStreamSync();
    return OpStatus::success();
  }
  OpStatus streamQuery(NativeHandle) override { return OpStatus::success(); }
  OpStatus deviceSynchronize() override {
    backend_.recordDeviceSync(device_);
    return OpStatus::success();
  }

  OpStatus eventCreate(uint32_t flags, NativeHandle *e) override {
    *e = nextHandle_++;
    events_[*e].flags = flags;
    return OpStatus::success();
  }
  OpStatus eventDestroy(NativeHandle e) override {
    events_.erase(e);
    return OpStatus::success();
  }
  OpStatus eventRecord(NativeHandle e, NativeHandle) override {
    backend_.recordEventRecord();
    HostEvent &ev = events_[e];
    ev.recorded = true;
    ev.when = Clock::now();
    return OpStatus::success();
  }
  OpStatus eventSynchronize(NativeHandle) override {
    return OpStatus::success();
  }
  OpStatus eventQuery(NativeHandle) override { return OpStatus::success(); }
  OpStatus eventElapsed(NativeHandle a, NativeHandle b, float *ms) override {
    const HostEvent &x = events_[a], &y = events_[b];
    if ((x.flags | y.flags) & kEventDisableTiming)
      return OpStatus::fail(kErrInvalidResourceHandle,
                            "event created with cudaEventDisableTiming");
    if (!x.recorded || !y.recorded)
      return OpStatus::fail(kErrInvalidResourceHandle,
                            "event was never recorded");
    *ms = std::chrono::duration<float, std::milli>(y.when - x.when).count();
    return OpStatus::success();
  }
  // CUDA's limits with its defaults on an H100 (cudaLimitStackSize ...
  // cudaLimitPersistingL2CacheSize); the test device keeps what it is told,
  // up to the device's memory for the sizes that take device memory.
  // Accepted (nothing executes here); the executor checked it.
  OpStatus streamSetAttribute(NativeHandle,
                              const StreamAttributeValue &) override {
    return OpStatus::success();
  }

  OpStatus resetPersistingL2() override { return OpStatus::success(); }

  OpStatus setLimit(int limit, uint64_t value) override {
    uint64_t *slot = nullptr;
    if (OpStatus st = limitSlot(limit, &slot); !st.ok())
      return st;
    if (value > backend_.totalMemory())
      return OpStatus::fail(kErrMemoryAllocation,
                            "limit " + std::to_string(limit) + " of " +
                                std::to_string(value) +
                                " bytes exceeds the device's memory");
    *slot = value;
    return OpStatus::success();
  }
  OpStatus getLimit(int limit, uint64_t *value) override {
    uint64_t *slot = nullptr;
    OpStatus st = limitSlot(limit, &slot);
    if (st.ok())
      *value = *slot;
    return st;
  }

  OpStatus streamWaitEvent(NativeHandle, NativeHandle, uint32_t) override {
    backend_.recordStreamWait();
    return OpStatus::success();
  }

  OpStatus symbolAddress(const VariableInfo &var, uint64_t *addr,
                         uint64_t *size) override {
    auto it = symbolAddr_.find(var.id);
    if (it == symbolAddr_.end()) {
      uint64_t bytes = var.size ? var.size : 1;
      uint64_t fake = backend_.reserve(bytes);
      Block b;
      b.size = bytes;
      b.host = fake ? static_cast<uint8_t *>(std::calloc(1, bytes)) : nullptr;
      if (!b.host) {
        if (fake)
          backend_.release(bytes);
        return OpStatus::fail(kErrMemoryAllocation,
                              "out of memory for variable " + var.name);
      }
      symbols_[fake] = b;
      it = symbolAddr_.emplace(var.id, fake).first;
    }
    *addr = it->second;
    *size = var.size;
    return OpStatus::success();
  }

  // cuBLAS: a CPU reference on the session's host memory (cublas_host.cpp).
  BlasContext *blas(std::string *) override {
    if (!blas_)
      blas_ = makeHostBlas(
          [this](uint64_t addr, uint64_t n) { return resolve(addr, n); });
    return blas_.get();
  }

  // Arrays and texture objects in host memory (texture_host.cpp).
  TextureDevice *textures() override {
    if (!textures_)
      textures_ =
          makeHostTextureDevice(*this, [this](uint64_t addr, uint64_t n) {
            return resolve(addr, n);
          });
    return textures_.get();
  }

  OpStatus setKernelAttribute(const KernelInfo &, int, int) override {
    return OpStatus::success(); // nothing executes: accepted
  }
  OpStatus clusterOccupancy(const KernelInfo &kernel, const ClusterQuery &q,
                            int *answer) override;
  // Driver VMM: a reservation is backed by lazily committed host memory
  // (MAP_NORESERVE), so a range spanning several mappings is contiguous on
  // the host too. Physical handles only account memory; their bytes live in
  // the reservation they are mapped into (aliasing is not emulated).
  OpStatus memAddressReserve(uint64_t size, uint64_t alignment,
                             uint64_t *addr) override {
    void *host = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED)
      return OpStatus::fail(kErrMemoryAllocation,
                            "cannot reserve " + std::to_string(size) +
                                " bytes of host address space");
    *addr = backend_.reserveAddressSpace(size, alignment);
    if (*addr == 0) {
      munmap(host, size);
      return OpStatus::fail(kErrMemoryAllocation,
                            "the test device's address space is used up");
    }
    Block b;
    b.host = static_cast<uint8_t *>(host);
    b.size = size;
    vaRanges_[*addr] = b;
    return OpStatus::success();
  }
  OpStatus memAddressFree(uint64_t addr, uint64_t) override {
    auto it = vaRanges_.find(addr);
    if (it == vaRanges_.end())
      return OpStatus::fail(kErrInvalidValue, "not a reservation");
    munmap(it->second.host, it->second.size);
    vaRanges_.erase(it);
    return OpStatus::success();
  }
  // Compression is granted as asked: the test device has no memory to
  // compress, only the bookkeeping.
  OpStatus memCreate(uint64_t size, bool compressible, NativeHandle *handle,
                     bool *compressed) override {
    *compressed = compressible;
    uint64_t fake = backend_.reserve(size); // accounting only
    if (!fake)
      return OpStatus::fail(kErrMemoryAllocation, "out of memory creating " +
                                                      std::to_string(size) +
                                                      " bytes");
    *handle = fake;
    physical_[fake] = size;
    return OpStatus::success();
  }
  OpStatus memRelease(NativeHandle handle) override {
    auto it = physical_.find(handle);
    if (it == physical_.end())
      return OpStatus::fail(kErrInvalidValue, "not an allocation handle");
    backend_.release(it->second);
    physical_.erase(it);
    return OpStatus::success();
  }
  OpStatus memMap(uint64_t, uint64_t, uint64_t, NativeHandle) override {
    return OpStatus::success();
  }
  OpStatus memUnmap(uint64_t addr, uint64_t size) override {
    // Unmapped memory reads as zeros when mapped again, like fresh memory.
    if (uint8_t *p = resolveIn(vaRanges_, addr, size))
      madvise(p, size, MADV_DONTNEED);
    return OpStatus::success();
  }
  OpStatus memSetAccess(uint64_t, uint64_t, const std::vector<int> &) override {
    return OpStatus::success();
  }

private:
  static uint8_t *resolveIn(std::map<uint64_t, Block> &table, uint64_t addr,
                            uint64_t size) {
    auto it = table.upper_bound(addr);
    if (it == table.begin())
      return nullptr;
    --it;
    uint64_t off = addr - it->first;
    if (off <= it->second.size && size <= it->second.size - off)
      return it->second.host + off;
    return nullptr;
  }
  void drop(Block &b) {
    std::free(b.host);
    backend_.release(b.size);
  }
  void *libraryPointer(uint64_t addr, uint64_t size) override {
    return resolve(addr, size);
  }
  // Host bytes for [addr, addr+size) if one block (allocation or variable)
  // holds them all.
  // (The executor has checked that VMM ranges are mapped.)
  uint8_t *resolve(uint64_t addr, uint64_t size) {
    for (auto *table : {&blocks_, &symbols_, &vaRanges_})
      if (uint8_t *p = resolveIn(*table, addr, size))
        return p;
    return nullptr;
  }
  static OpStatus outside(uint64_t addr, uint64_t size) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "range 0x%llx+%llu is not device memory",
                  (unsigned long long)addr, (unsigned long long)size);
    return OpStatus::fail(kErrInvalidValue, buf);
  }

  HostBackend &backend_;
  int device_;
  // Where limit `limit` is kept; a number that is no cudaLimit is an
  // invalid value, as the driver answers it.
  OpStatus limitSlot(int limit, uint64_t **slot) {
    if (limit < 0 || size_t(limit) >= std::size(limits_))
      return OpStatus::fail(kErrInvalidValue,
                            "no limit " + std::to_string(limit));
    *slot = &limits_[limit];
    return OpStatus::success();
  }
  // cudaLimit 0..6: stack, printf FIFO, malloc heap, device-runtime sync
  // depth and pending launches, L2 fetch granularity, persisting L2.
  uint64_t limits_[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
  std::map<uint64_t, Block> blocks_;
  std::unique_ptr<BlasContext> blas_;       // first use of cuBLAS
  std::unique_ptr<TextureDevice> textures_; // first use of an array
  std::map<uint64_t, Block> symbols_;
  std::map<uint64_t, uint64_t> symbolAddr_; // variable id -> fake address
  std::map<NativeHandle, HostEvent> events_;
  std::map<uint64_t, Block> vaRanges_;        // cuMemAddressReserve'd
  std::map<NativeHandle, uint64_t> physical_; // cuMemCreate handle -> size
  NativeHandle nextHandle_ = 16; // above the special stream handles
};

// A model of the driver's answer, enough for the wire's tests: clusters of
// up to 8 blocks (the portable size, which is also the potential size),
// one block of a cluster per multiprocessor. The GPU's driver also
// weighs the kernel's resources and how its multiprocessors are grouped;
// the host device knows no kernel's own cluster dimension.
OpStatus HostContext::clusterOccupancy(const KernelInfo &,
                                       const ClusterQuery &q, int *answer) {
  constexpr uint32_t kPortableClusterSize = 8;
  if (q.potentialSize) {
    *answer = int(kPortableClusterSize);
    return OpStatus::success();
  }
  uint64_t size = uint64_t(q.cluster[0]) * q.cluster[1] * q.cluster[2];
  if (size == 0)
    return OpStatus::fail(kErrInvalidClusterSize,
                          "no cluster dimension given (the host test device "
                          "knows no kernel's own)");
  for (int i = 0; i < 3; ++i)
    if (q.launch.grid[i] % q.cluster[i])
      return OpStatus::fail(kErrInvalidClusterSize,
                            "the grid is no multiple of the cluster dimension");
  if (size > kPortableClusterSize)
    return OpStatus::fail(kErrInvalidClusterSize,
                          "clusters of " + std::to_string(size) +
                              " blocks exceed the portable 8");
  const auto &attrs = backend_.device(device_).attributes;
  *answer =
      int(uint64_t(attrs[CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT]) / size);
  return OpStatus::success();
}

} // namespace

HostBackend::HostBackend(int devices, uint64_t memory)
    : memory_(memory),
      modules_(std::make_unique<ModuleLibrary>(
          [](const std::vector<uint8_t> &image, NativeHandle *module) {
            std::string text(image.begin(), image.end());
            if (text.find(".entry") == std::string::npos)
              return OpStatus::fail(kErrInvalidKernelImage,
                                    "cannot load the module: the host test "
                                    "device loads PTX text only");
            *module = reinterpret_cast<NativeHandle>(
                new std::string(std::move(text)));
            return OpStatus::success();
          },
          [](NativeHandle module) {
            delete reinterpret_cast<std::string *>(module);
          })) {
  for (int d = 0; d < devices; ++d) {
    DeviceDescription desc;
    desc.name = "remote-clang host test device";
    desc.totalMem = memory;
    for (size_t i = 0; i < desc.uuid.size(); ++i)
      desc.uuid[i] = uint8_t(0xA0 + i);
    desc.uuid[15] = uint8_t(0xAF + d); // distinct per device, like real ones
    desc.attributes = hostAttributes();
    desc.backend = "host-test";
    for (int peer = 0; peer < devices; ++peer)
      desc.canAccessPeer.push_back(peer != d);
    devices_.push_back(std::move(desc));
  }
}

bool HostBackend::prepare(Registry &registry, std::string *) {
  // Nothing to load: kernels "resolve" by being in the registry. Their
  // attributes are what a small sm_90 kernel reports on an H100.
  for (KernelInfo &k : registry.kernels)
    k.attrs = hostKernelAttrs();
  return true;
}

std::unique_ptr<DeviceContext> HostBackend::createContext(int index,
                                                          std::string *) {
  return std::make_unique<HostContext>(*this, index);
}

uint64_t HostBackend::bytesInUse() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return inUse_;
}

std::vector<LaunchRecord> HostBackend::launches() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return launches_;
}

void HostBackend::recordStreamCreate(int priority) {
  std::lock_guard<std::mutex> lock(mutex_);
  streamPriorities_.push_back(priority);
}

std::vector<int> HostBackend::streamPriorities() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return streamPriorities_;
}

uint64_t HostBackend::reserve(uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (size > memory_ - inUse_)
    return 0;
  // Addresses are never reused (256-byte aligned, one guard page apart), so
  // a stale or foreign pointer never lands in a live allocation by accident.
  uint64_t step = ((size + 255) & ~uint64_t(255)) + 4096;
  if (step > kAddressLimit - nextAddr_)
    return 0; // the address space is used up: never wrap around to reuse it
  inUse_ += size;
  uint64_t addr = nextAddr_;
  nextAddr_ += step;
  return addr;
}

uint64_t HostBackend::reserveAddressSpace(uint64_t size, uint64_t alignment) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Like the driver: reservations start at a multiple of the 2 MiB VMM
  // granularity (clients check that mapped addresses are).
  const uint64_t kVmmGranularity = 2ull << 20;
  uint64_t align = alignment > kVmmGranularity ? alignment : kVmmGranularity;
  if (align > kAddressLimit || size > kAddressLimit)
    return 0;
  uint64_t addr = (nextAddr_ + align - 1) / align * align;
  uint64_t step = ((size + 4095) & ~uint64_t(4095)) + 4096;
  if (addr > kAddressLimit || step > kAddressLimit - addr)
    return 0; // as in reserve(): no wrap-around, no reuse
  nextAddr_ = addr + step;
  return addr;
}

void HostBackend::release(uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  inUse_ -= size;
}

void HostBackend::record(LaunchRecord r) {
  std::lock_guard<std::mutex> lock(mutex_);
  r.syncsBefore = streamSyncs_;
  r.waitsBefore = streamWaits_;
  if (onLaunch_)
    onLaunch_(r);
  // A long-running test-device server keeps only the most recent launches.
  if (launches_.size() >= kMaxLaunchRecords)
    launches_.erase(launches_.begin(),
                    launches_.begin() + kMaxLaunchRecords / 2);
  launches_.push_back(std::move(r));
}

HostBackend::~HostBackend() = default;

OpStatus HostBackend::loadModule(const uint8_t *image, size_t size,
                                 NativeHandle *module) {
  return modules_->acquire(image, size, module);
}

void HostBackend::releaseModule(NativeHandle module) {
  modules_->release(module);
}

OpStatus HostBackend::moduleKernel(NativeHandle module, const std::string &name,
                                   KernelInfo *out) {
  std::string why;
  if (!ptxEntryLayout(*reinterpret_cast<const std::string *>(module), name, out,
                      &why))
    return OpStatus::fail(kErrSymbolNotFound, why);
  // A kernel of its own to launch: the text's address for the module, the
  // name's hash for the kernel.
  out->native = reinterpret_cast<void *>(module);
  out->attrs = hostKernelAttrs();
  return OpStatus::success();
}

size_t HostBackend::modulesLoaded() const { return modules_->loaded(); }

void HostBackend::onDeviceSync(std::function<void(int)> hook) {
  std::lock_guard<std::mutex> lock(mutex_);
  onDeviceSync_ = std::move(hook);
}

void HostBackend::recordDeviceSync(int device) {
  std::function<void(int)> hook;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    hook = onDeviceSync_;
  }
  if (hook)
    hook(device);
}

void HostBackend::onLaunch(std::function<void(const LaunchRecord &)> hook) {
  std::lock_guard<std::mutex> lock(mutex_);
  onLaunch_ = std::move(hook);
}

std::unique_ptr<Backend> makeHostBackend(int devices) {
  return std::make_unique<HostBackend>(devices);
}

} // namespace rc::server
