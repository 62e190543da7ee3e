// The CUDA backend: a real GPU through the driver API, dlopen'd at run time so
// rc-server builds and starts (with --test-device) where there is no GPU.
// Modules are loaded once as context-independent libraries (cuLibrary*, CUDA
// >= 12.0); every session gets its own CUcontext, current on its thread.
#include "backend/cublas_context.h"
#include "backend/cuda/copy_relay.h"
#include "backend/cuda/cuda_driver.h"
#include "backend/cuda/module_cuda.h"
#include "backend/graph_device.h"
#include "backend/module_library.h"
#include "backend/texture_device.h"
#include "rc/hex.h"
#include "rc/server/backend.h"
#include "rc/server/errors.h"
#include "rc/server/log.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace rc::server {

namespace {

constexpr size_t kStagingSlots = 4;
constexpr size_t kStagingSlotBytes = 1 << 20;
// Uploads up to this size share a staging slot (CudaContext::Packing).
constexpr size_t kPackedUploadMax = 64 << 10;
constexpr size_t kPackedAlign = 64;

CUstream toStream(NativeHandle h) { return cudaStreamOf(h); }
CUevent toEvent(NativeHandle h) { return reinterpret_cast<CUevent>(h); }

class CudaBackend;

class CudaContext : public DeviceContext {
public:
  CudaContext(CudaBackend &b, CUcontext ctx, CUdevice dev);
  ~CudaContext() override;
  bool initStaging(std::string *error);
  void activate() override;

  OpStatus malloc(uint64_t size, uint64_t *addr) override;
  OpStatus free(uint64_t addr) override;
  OpStatus copyH2D(uint64_t dst, const uint8_t *src, uint64_t size,
                   NativeHandle s) override;
  OpStatus copyD2H(uint8_t *dst, uint64_t src, uint64_t size,
                   NativeHandle s) override;
  OpStatus readD2H(uint64_t src, uint64_t size, NativeHandle s,
                   const ChunkConsumer &consume, uint64_t pieceBytes) override;
  OpStatus hostAlloc(uint64_t size, uint8_t **host) override;
  void hostFree(uint8_t *host) override;
  OpStatus copyH2DFromHostAlloc(uint64_t dst, const uint8_t *src, uint64_t size,
                                NativeHandle s) override;
  OpStatus hostRegister(uint8_t *host, uint64_t size) override;
  OpStatus copyD2HToHostAlloc(uint8_t *dst, uint64_t src, uint64_t size,
                              NativeHandle stream) override;
  void hostUnregister(uint8_t *host) override;
  OpStatus copyD2HRegistered(uint8_t *dst, uint64_t src, uint64_t size,
                             NativeHandle s) override;
  OpStatus copyD2D(uint64_t dst, uint64_t src, uint64_t size,
                   NativeHandle s) override;
  OpStatus copyPeer(uint64_t dst, DeviceContext &dstCtx, uint64_t src,
                    DeviceContext &srcCtx, uint64_t size,
                    NativeHandle s) override;
  OpStatus setPeerAccess(DeviceContext &peer, bool enable) override;
  OpStatus setProfiling(bool start) override;
  OpStatus setLimit(int limit, uint64_t value) override;
  OpStatus streamSetAttribute(NativeHandle stream,
                              const StreamAttributeValue &v) override;
  OpStatus resetPersistingL2() override {
    return check(drv().cuCtxResetPersistingL2Cache());
  }
  OpStatus getLimit(int limit, uint64_t *value) override;
  OpStatus memset(uint64_t dst, uint8_t value, uint64_t size,
                  NativeHandle s) override;
  OpStatus launch(const KernelInfo &kernel, const LaunchConfig &cfg,
                  const uint8_t *args) override;
  OpStatus streamCreate(uint32_t flags, int32_t priority,
                        NativeHandle *stream) override;
  OpStatus streamDestroy(NativeHandle stream) override;
  OpStatus streamSynchronize(NativeHandle stream) override;
  OpStatus streamQuery(NativeHandle stream) override;
  OpStatus deviceSynchronize() override;
  OpStatus eventCreate(uint32_t flags, NativeHandle *event) override;
  OpStatus eventDestroy(NativeHandle event) override;
  OpStatus eventRecord(NativeHandle event, NativeHandle stream) override;
  OpStatus eventSynchronize(NativeHandle event) override;
  OpStatus eventQuery(NativeHandle event) override;
  OpStatus eventElapsed(NativeHandle start, NativeHandle end,
                        float *ms) override;
  OpStatus streamWaitEvent(NativeHandle stream, NativeHandle event,
                           uint32_t flags) override;
  OpStatus symbolAddress(const VariableInfo &var, uint64_t *addr,
                         uint64_t *size) override;
  // cuBLAS through the real libcublas (cublas_cuda.cpp), on first use.
  BlasContext *blas(std::string *why) override;
  // Real CUDA graphs (graph_cuda.cpp), created on first use.
  GraphDevice *graphs() override {
    if (!graphs_)
      graphs_ = makeCudaGraphDevice(drv(), ctx_);
    return graphs_.get();
  }
  // Arrays and texture/surface objects (texture_cuda.cpp), on first use.
  TextureDevice *textures() override {
    if (!textures_)
      textures_ = makeCudaTextureDevice(drv(), dev_);
    return textures_.get();
  }
  OpStatus setKernelAttribute(const KernelInfo &kernel, int attribute,
                              int value) override;
  OpStatus clusterOccupancy(const KernelInfo &kernel, const ClusterQuery &q,
                            int *answer) override;
  OpStatus memAddressReserve(uint64_t size, uint64_t alignment,
                             uint64_t *addr) override;
  OpStatus memAddressFree(uint64_t addr, uint64_t size) override;
  OpStatus memCreate(uint64_t size, bool compressible, NativeHandle *handle,
                     bool *compressed) override;
  OpStatus memRelease(NativeHandle handle) override;
  OpStatus memMap(uint64_t addr, uint64_t size, uint64_t offset,
                  NativeHandle handle) override;
  OpStatus memUnmap(uint64_t addr, uint64_t size) override;
  OpStatus memSetAccess(uint64_t addr, uint64_t size,
                        const std::vector<int> &devices) override;

private:
  OpStatus check(CUresult r) const;
  const CudaDriver &drv() const;

  struct Slot {
    uint8_t *host = nullptr;
    CUevent done = nullptr; // recorded after the copies that used the slot
    bool used = false;
  };
  // Next pinned staging slot, waiting until the copies that last used it
  // ended.
  OpStatus takeSlot(Slot **slot);
  // A read-back slot of `bytes`, for pieces larger than the staging slots
  // (readD2H's `pieceBytes`): two of them, allocated on first use and kept
  // (reallocated larger when asked for more).
  OpStatus takeWideSlot(uint64_t bytes, Slot **slot);
  void freeSlot(Slot &slot);
  // Small uploads to one stream are packed into one slot at increasing
  // offsets, and the slot's event is recorded once, when packing moves on:
  // a decode token's 7 small inputs used to take a slot (and an event) each,
  // and the 5th waited for the 1st to reach the GPU before it could be
  // issued. Copies on one stream run in order, so the one event covers them.
  struct Packing {
    Slot *slot = nullptr;
    CUstream stream = nullptr;
    uint64_t used = 0;
  };
  OpStatus packUpload(uint64_t dst, const uint8_t *src, uint64_t size,
                      CUstream stream);
  // Records the packing slot's event: before the slot can be taken again,
  // and before its stream is destroyed.
  OpStatus closePacking();
  // Whether a copy of `size` bytes on `stream` goes through relays
  // (CudaSettings::multipath); they are made on the first copy that asks.
  bool useRelays(uint64_t size, CUstream stream);
  void setUpRelays();
  // The copy in equal parts: one over this device's own link, one through
  // each relay.
  CUresult copyThroughRelays(uint64_t dst, const uint8_t *src, uint64_t size,
                             CUstream stream);

  CudaBackend &backend_;
  CUcontext ctx_;
  CUdevice dev_;
  Slot slots_[kStagingSlots];
  size_t nextSlot_ = 0;
  Slot wideSlots_[2];
  uint64_t wideSlotBytes_ = 0;
  size_t nextWideSlot_ = 0;
  Packing packing_;
  bool packUploads_ = true;
  std::map<uint64_t, uint64_t> allocs_; // for accounting on destroy
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> symbols_;
  std::unique_ptr<BlasContext> blas_;       // destroyed before the context
  std::unique_ptr<GraphDevice> graphs_;     // likewise
  std::unique_ptr<TextureDevice> textures_; // likewise
  std::vector<std::unique_ptr<CopyRelay>> relays_; // likewise
  bool relaysTried_ = false;
  // VMM objects are not owned by the context: released on destruction.
  std::map<uint64_t, uint64_t> vaRanges_;     // reserved base -> size
  std::map<NativeHandle, uint64_t> physical_; // handle -> size
  std::map<uint64_t, uint64_t> vmmMapped_;    // mapped base -> size
};

class CudaBackend : public Backend {
public:
  CudaBackend(std::vector<int> ordinals, const CudaSettings &settings)
      : ordinals_(std::move(ordinals)), settings_(settings) {}
  ~CudaBackend() override {
    for (auto &kv : relayContexts_)
      if (kv.second)
        drv.cuCtxDestroy(kv.second);
  }
  const CudaSettings &settings() const { return settings_; }

  bool init(std::string *error) {
    if (!gpuWaitFlags(settings_.gpuWait, &ctxFlags_, error))
      return false;
    if (!drv.load(error))
      return false;
    CUresult r = drv.cuInit(0);
    if (r != CUDA_SUCCESS)
      return fail(error, "cuInit failed: " + drv.describe(r));
    int count = 0;
    drv.cuDeviceGetCount(&count);
    if (count == 0)
      return fail(error, "the CUDA driver sees no device");
    if (ordinals_.empty())
      for (int i = 0; i < count; ++i)
        ordinals_.push_back(i);
    for (int ordinal : ordinals_) {
      if (ordinal < 0 || ordinal >= count)
        return fail(error, "device " + std::to_string(ordinal) +
                               " does not exist (" + std::to_string(count) +
                               " CUDA devices)");
      CUdevice dev = 0;
      if ((r = drv.cuDeviceGet(&dev, ordinal)) != CUDA_SUCCESS)
        return fail(error, "cuDeviceGet: " + drv.describe(r));
      devs.push_back(dev);
      descs_.push_back(describeDevice(dev));
    }
    // Peer access as kernels would have it (cudaDeviceCanAccessPeer).
    for (size_t i = 0; i < devs.size(); ++i)
      for (size_t j = 0; j < devs.size(); ++j) {
        int can = 0;
        if (i != j)
          drv.cuDeviceCanAccessPeer(&can, devs[i], devs[j]);
        descs_[i].canAccessPeer.push_back(can != 0);
      }
    return true;
  }

  DeviceDescription describeDevice(CUdevice dev) {
    DeviceDescription d;
    char name[256] = {};
    drv.cuDeviceGetName(name, sizeof name - 1, dev);
    size_t total = 0;
    drv.cuDeviceTotalMem(&total, dev);
    CUuuid uuid{};
    drv.cuDeviceGetUuid(&uuid, dev);
    d.name = name;
    d.totalMem = total;
    std::memcpy(d.uuid.data(), uuid.bytes, 16);
    d.attributes.assign(CU_DEVICE_ATTRIBUTE_MAX, 0);
    // Attributes the driver does not know (newer than it) stay 0.
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
      int v = 0;
      if (drv.cuDeviceGetAttribute(&v, CUdevice_attribute(a), dev) ==
          CUDA_SUCCESS)
        d.attributes[a] = v;
    }
    d.backend = "cuda";
    return d;
  }

  bool prepare(Registry &reg, std::string *error) override {
    for (ModuleInfo &m : reg.modules) {
      if (!m.fatbin || m.fatbinSize == 0)
        continue; // no device code: only an error if a kernel needs it
      // The driver reads the fatbin with aligned loads; flatbuffer vectors
      // are only 4-byte aligned, so copy into 8-byte-aligned storage.
      images_.emplace_back((m.fatbinSize + 7) / 8);
      std::memcpy(images_.back().data(), m.fatbin, m.fatbinSize);
      CUlibrary lib = nullptr;
      CUresult r = drv.cuLibraryLoadData(&lib, images_.back().data(), nullptr,
                                         nullptr, 0, nullptr, nullptr, 0);
      if (r != CUDA_SUCCESS)
        return fail(error, "cannot load module " + m.source + " (fatbin " +
                               hexId(m.fatbinHash) + "): " + drv.describe(r));
      m.native = lib;
    }
    for (KernelInfo &k : reg.kernels) {
      if (!k.hasDeviceCode)
        continue; // nothing to resolve: a launch of it is refused
      const ModuleInfo &m = reg.modules[k.module];
      CUkernel kernel = nullptr;
      CUresult r = m.native ? drv.cuLibraryGetKernel(
                                  &kernel, CUlibrary(m.native), k.name.c_str())
                            : CUDA_ERROR_NOT_FOUND;
      if (r != CUDA_SUCCESS)
        return fail(error, "kernel " + k.name + " (" + k.demangled +
                               ") does not resolve in module " + m.source +
                               ": " + drv.describe(r));
      k.native = kernel;
    }
    if (reg.variables.empty() && reg.kernels.empty())
      return true;
    // Globals are per context: check every name now in a scratch context so
    // a bad manifest fails at start-up, not in some session later. Kernel
    // attributes are read there too (loading each kernel on the device).
    // Kernel attributes come from the first device: a server's GPUs are
    // expected to be of one kind (a manifest targets one architecture).
    CUcontext scratch = nullptr;
    CUresult r = drv.cuCtxCreate(&scratch, 0, devs[0]);
    if (r != CUDA_SUCCESS)
      return fail(error, "cuCtxCreate: " + drv.describe(r));
    bool ok = true;
    for (KernelInfo &k : reg.kernels) {
      if (!k.hasDeviceCode)
        continue;
      r = readKernelAttrs(CUkernel(k.native), &k.attrs);
      if (r != CUDA_SUCCESS) {
        ok = fail(error, "cannot read the attributes of kernel " + k.name +
                             " (" + k.demangled + "): " + drv.describe(r));
        break;
      }
    }
    for (VariableInfo &v : reg.variables) {
      if (!ok)
        break;
      const ModuleInfo &m = reg.modules[v.module];
      v.library = m.native;
      CUdeviceptr p = 0;
      size_t bytes = 0;
      r = m.native ? drv.cuLibraryGetGlobal(&p, &bytes, CUlibrary(m.native),
                                            v.name.c_str())
                   : CUDA_ERROR_NOT_FOUND;
      if (r != CUDA_SUCCESS) {
        ok = fail(error, "variable " + v.name + " does not resolve in module " +
                             m.source + ": " + drv.describe(r));
        break;
      }
    }
    drv.cuCtxDestroy(scratch);
    return ok;
  }

  int deviceCount() const override { return int(descs_.size()); }
  const DeviceDescription &device(int index) const override {
    return descs_[size_t(index)];
  }
  bool canAccessPeer(int device, int peer) const override {
    return descs_[size_t(device)].canAccessPeer[size_t(peer)];
  }

  // cudaFuncAttributes as the runtime would report them on this device. The
  // basic ones must be readable (occupancy needs them); the others keep
  // their defaults on drivers that do not know them.
  CUresult readKernelAttrs(CUkernel kernel, KernelAttrs *a) {
    CUresult first = CUDA_SUCCESS;
    auto get = [&](CUfunction_attribute which, int32_t *out) {
      int v = 0;
      CUresult r = drv.cuKernelGetAttribute(&v, which, kernel, devs[0]);
      if (r == CUDA_SUCCESS)
        *out = v;
      return r;
    };
    first =
        get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a->maxThreadsPerBlock);
    if (first == CUDA_SUCCESS)
      first = get(CU_FUNC_ATTRIBUTE_NUM_REGS, &a->numRegs);
    get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &a->sharedSizeBytes);
    get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &a->constSizeBytes);
    get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &a->localSizeBytes);
    get(CU_FUNC_ATTRIBUTE_PTX_VERSION, &a->ptxVersion);
    get(CU_FUNC_ATTRIBUTE_BINARY_VERSION, &a->binaryVersion);
    get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        &a->maxDynamicSharedSizeBytes);
    get(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
        &a->preferredCarveout);
    get(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, &a->cacheModeCA);
    return first;
  }

  // How a session's thread waits for the GPU (CudaSettings::gpuWait,
  // RC_DEV_SERVER_GPU_WAIT): CUDA's
  // default spins while the process has fewer contexts than cores; "yield"
  // lets a co-located client's threads have the core meanwhile, "block"
  // sleeps. For measurements: a llama.cpp client on the same machine keeps
  // every core busy between its GPU steps, and "yield" cost it half of its
  // 1B tokens per second over shm (0.507 of local against 0.983;
  // docs/design/waiting.md).
  static bool gpuWaitFlags(const std::string &w, unsigned *flags,
                           std::string *error) {
    if (w.empty())
      *flags = CU_CTX_SCHED_AUTO;
    else if (w == "spin")
      *flags = CU_CTX_SCHED_SPIN;
    else if (w == "yield")
      *flags = CU_CTX_SCHED_YIELD;
    else if (w == "block")
      *flags = CU_CTX_SCHED_BLOCKING_SYNC;
    else
      return fail(error, "RC_DEV_SERVER_GPU_WAIT must be spin, yield or block "
                         "(got '" +
                             w + "')");
    return true;
  }

  std::unique_ptr<DeviceContext> createContext(int index,
                                               std::string *error) override {
    CUcontext ctx = nullptr;
    // cuCtxCreate also makes the context current on the calling (session)
    // thread, which is the only thread that will use it.
    CUresult r = drv.cuCtxCreate(&ctx, ctxFlags_, devs[size_t(index)]);
    if (r != CUDA_SUCCESS) {
      fail(error, "cuCtxCreate on device " + std::to_string(index) + ": " +
                      drv.describe(r));
      return nullptr;
    }
    auto c = std::make_unique<CudaContext>(*this, ctx, devs[size_t(index)]);
    if (!c->initStaging(error))
      return nullptr;
    return c;
  }

  // Pops it: a null current context replaces the top of the thread's
  // stack (cuCtxSetCurrent).
  void leaveContext() override { drv.cuCtxSetCurrent(nullptr); }

  uint64_t bytesInUse() const override { return inUse.load(); }

  OpStatus loadModule(const uint8_t *image, size_t size,
                      NativeHandle *module) override {
    return modules_.acquire(image, size, module);
  }
  void releaseModule(NativeHandle module) override { modules_.release(module); }
  // Its attributes are read as a manifest kernel's are (on the first
  // device), for cuFuncGetAttribute and occupancy (FunctionAttributes).
  OpStatus moduleKernel(NativeHandle module, const std::string &name,
                        KernelInfo *out) override {
    OpStatus st = cudaModuleKernel(drv, module, name, out);
    if (st.ok())
      readKernelAttrs(CUkernel(out->native), &out->attrs);
    return st;
  }

  // The contexts through which copies to `dev` relay (CopyRelay): one on
  // each other device this backend serves that `dev` can read peer to peer,
  // made on first use and shared by the sessions (only copies run in
  // them). *why says why there is none, or why one is missing. Leaves the
  // calling thread's current context as it was.
  std::vector<CUcontext> relayContexts(CUdevice dev, std::string *why) {
    size_t self = std::find(devs.begin(), devs.end(), dev) - devs.begin();
    std::vector<CUcontext> relays;
    std::lock_guard<std::mutex> g(relayMu_);
    for (size_t peer = 0; self < devs.size() && peer < devs.size(); ++peer) {
      if (peer == self || !descs_[self].canAccessPeer[peer])
        continue;
      CUcontext &relay = relayContexts_[peer];
      if (!relay) {
        CUcontext current = nullptr;
        drv.cuCtxGetCurrent(&current);
        CUresult r = drv.cuCtxCreate(&relay, ctxFlags_, devs[peer]);
        drv.cuCtxSetCurrent(current);
        if (r != CUDA_SUCCESS) {
          relay = nullptr;
          *why = "cuCtxCreate on relay device " + std::to_string(peer) + ": " +
                 drv.describe(r);
          continue;
        }
      }
      relays.push_back(relay);
    }
    if (relays.empty() && why->empty())
      *why = "no other device of this server is reachable peer to peer";
    return relays;
  }

  CudaDriver drv;
  std::vector<CUdevice> devs; // by backend index
  std::atomic<uint64_t> inUse{0};

private:
  static bool fail(std::string *error, const std::string &why) {
    if (error)
      *error = why;
    return false;
  }
  std::vector<int> ordinals_;
  CudaSettings settings_;
  unsigned ctxFlags_ = CU_CTX_SCHED_AUTO;
  std::vector<DeviceDescription> descs_;
  std::vector<std::vector<uint64_t>> images_;
  std::mutex relayMu_;
  std::map<size_t, CUcontext> relayContexts_; // by backend index
  // After drv: unloaded before the driver goes.
  ModuleLibrary modules_{
      [this](const std::vector<uint8_t> &image, NativeHandle *module) {
        return loadCudaModule(drv, image, module);
      },
      [this](NativeHandle module) { unloadCudaModule(drv, module); }};
};

CudaContext::CudaContext(CudaBackend &b, CUcontext ctx, CUdevice dev)
    : backend_(b), ctx_(ctx), dev_(dev) {
  // packUploads false: one slot per upload, as before packing (for
  // measuring what packing buys).
  packUploads_ = b.settings().packUploads;
}

BlasContext *CudaContext::blas(std::string *why) {
  if (!blas_)
    blas_ = makeCudaBlas(
        *this, [](NativeHandle h) -> void * { return toStream(h); },
        backend_.settings().cublasLibrary, why);
  return blas_.get();
}

const CudaDriver &CudaContext::drv() const { return backend_.drv; }

void CudaContext::activate() { drv().cuCtxSetCurrent(ctx_); }

OpStatus CudaContext::check(CUresult r) const { return drv().status(r); }

bool CudaContext::initStaging(std::string *error) {
  for (Slot &s : slots_) {
    void *p = nullptr;
    CUresult r = drv().cuMemHostAlloc(&p, kStagingSlotBytes, 0);
    if (r == CUDA_SUCCESS)
      r = drv().cuEventCreate(&s.done, CU_EVENT_DISABLE_TIMING);
    if (r != CUDA_SUCCESS) {
      if (error)
        *error = "cannot allocate pinned staging memory: " + drv().describe(r);
      return false;
    }
    s.host = static_cast<uint8_t *>(p);
  }
  return true;
}

CudaContext::~CudaContext() {
  drv().cuCtxSetCurrent(ctx_);
  blas_.reset(); // its handles and buffers live in this context
  graphs_.reset();
  textures_.reset();
  relays_.clear();
  for (Slot &s : slots_)
    freeSlot(s);
  for (Slot &s : wideSlots_)
    freeSlot(s);
  for (auto &kv : allocs_)
    backend_.inUse -= kv.second;
  // Mappings and handles outlive contexts in CUDA: undo them explicitly.
  for (auto &kv : vmmMapped_)
    drv().cuMemUnmap(kv.first, kv.second);
  for (auto &kv : physical_) {
    drv().cuMemRelease(CUmemGenericAllocationHandle(kv.first));
    backend_.inUse -= kv.second;
  }
  for (auto &kv : vaRanges_)
    drv().cuMemAddressFree(kv.first, kv.second);
  // Destroying the context frees every allocation, stream and event of the
  // session, including those the client never released.
  drv().cuCtxDestroy(ctx_);
}

OpStatus CudaContext::takeSlot(Slot **slot) {
  // Simplest rule that keeps the packing slot's event current whenever
  // takeSlot could come round to it: close it on every take.
  OpStatus st = closePacking();
  if (!st.ok())
    return st;
  Slot &s = slots_[nextSlot_];
  nextSlot_ = (nextSlot_ + 1) % kStagingSlots;
  if (s.used && !(st = check(drv().cuEventSynchronize(s.done))).ok())
    return st;
  s.used = true;
  *slot = &s;
  return OpStatus::success();
}

OpStatus CudaContext::takeWideSlot(uint64_t bytes, Slot **slot) {
  if (bytes > wideSlotBytes_) {
    for (Slot &s : wideSlots_) {
      if (s.used)
        drv().cuEventSynchronize(s.done);
      freeSlot(s);
    }
    wideSlotBytes_ = 0;
    for (Slot &s : wideSlots_) {
      void *p = nullptr;
      OpStatus st = check(drv().cuMemHostAlloc(&p, bytes, 0));
      s.host = static_cast<uint8_t *>(p);
      if (st.ok())
        st = check(drv().cuEventCreate(&s.done, CU_EVENT_DISABLE_TIMING));
      if (!st.ok())
        return st; // the slots left are freed on the next try or with us
    }
    wideSlotBytes_ = bytes;
  }
  Slot &s = wideSlots_[nextWideSlot_];
  nextWideSlot_ = (nextWideSlot_ + 1) % std::size(wideSlots_);
  OpStatus st;
  if (s.used && !(st = check(drv().cuEventSynchronize(s.done))).ok())
    return st;
  s.used = true;
  *slot = &s;
  return OpStatus::success();
}

void CudaContext::freeSlot(Slot &slot) {
  if (slot.done)
    drv().cuEventDestroy(slot.done);
  if (slot.host)
    drv().cuMemFreeHost(slot.host);
  slot = Slot();
}

OpStatus CudaContext::closePacking() {
  if (!packing_.slot)
    return OpStatus::success();
  CUstream stream = packing_.stream;
  Slot *slot = packing_.slot;
  packing_ = Packing();
  return check(drv().cuEventRecord(slot->done, stream));
}

OpStatus CudaContext::packUpload(uint64_t dst, const uint8_t *src,
                                 uint64_t size, CUstream stream) {
  uint64_t at =
      (packing_.used + kPackedAlign - 1) / kPackedAlign * kPackedAlign;
  if (!packing_.slot || packing_.stream != stream ||
      at + size > kStagingSlotBytes) {
    Slot *slot = nullptr;
    OpStatus st = takeSlot(&slot); // closes the current packing slot
    if (!st.ok())
      return st;
    packing_ = {slot, stream, 0};
    at = 0;
  }
  std::memcpy(packing_.slot->host + at, src, size);
  packing_.used = at + size;
  return check(
      drv().cuMemcpyHtoDAsync(dst, packing_.slot->host + at, size, stream));
}

OpStatus CudaContext::malloc(uint64_t size, uint64_t *addr) {
  if (size == 0) {
    *addr = 0;
    return OpStatus::success();
  }
  CUdeviceptr p = 0;
  OpStatus st = check(drv().cuMemAlloc(&p, size));
  if (st.ok()) {
    *addr = p;
    allocs_[p] = size;
    backend_.inUse += size;
  }
  return st;
}

OpStatus CudaContext::free(uint64_t addr) {
  OpStatus st = check(drv().cuMemFree(CUdeviceptr(addr)));
  auto it = allocs_.find(addr);
  if (st.ok() && it != allocs_.end()) {
    backend_.inUse -= it->second;
    allocs_.erase(it);
  }
  return st;
}

OpStatus CudaContext::copyH2D(uint64_t dst, const uint8_t *src, uint64_t size,
                              NativeHandle s) {
  // Through pinned staging: the copy stays asynchronous on the stream and the
  // message buffer may be reused as soon as this returns.
  if (packUploads_ && size <= kPackedUploadMax)
    return packUpload(dst, src, size, toStream(s));
  for (uint64_t done = 0; done < size;) {
    uint64_t n = std::min<uint64_t>(size - done, kStagingSlotBytes);
    Slot *slot = nullptr;
    OpStatus st = takeSlot(&slot);
    if (!st.ok())
      return st;
    std::memcpy(slot->host, src + done, n);
    st = check(drv().cuMemcpyHtoDAsync(dst + done, slot->host, n, toStream(s)));
    if (st.ok())
      st = check(drv().cuEventRecord(slot->done, toStream(s)));
    if (!st.ok())
      return st;
    done += n;
  }
  return OpStatus::success();
}

OpStatus CudaContext::hostAlloc(uint64_t size, uint8_t **host) {
  void *p = nullptr;
  // Portable: every device context of the session copies from it.
  OpStatus st = check(drv().cuMemHostAlloc(&p, size, CU_MEMHOSTALLOC_PORTABLE));
  *host = static_cast<uint8_t *>(p);
  return st;
}

void CudaContext::hostFree(uint8_t *host) {
  if (host)
    drv().cuMemFreeHost(host);
}

OpStatus CudaContext::copyH2DFromHostAlloc(uint64_t dst, const uint8_t *src,
                                           uint64_t size, NativeHandle s) {
  if (useRelays(size, toStream(s)))
    return check(copyThroughRelays(dst, src, size, toStream(s)));
  return check(drv().cuMemcpyHtoDAsync(dst, src, size, toStream(s)));
}

bool CudaContext::useRelays(uint64_t size, CUstream stream) {
  if (!backend_.settings().multipath || !CopyRelay::worthRelaying(size))
    return false;
  // A capture would pull the relays' streams, on other devices, into the
  // graph: captured copies stay whole.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (drv().cuStreamGetCaptureInfo(stream, &capture, nullptr, nullptr, nullptr,
                                   nullptr, nullptr) != CUDA_SUCCESS ||
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return false;
  if (!relaysTried_)
    setUpRelays();
  return !relays_.empty();
}

// A relay through every peer the backend offers; one that cannot be set
// up (its GPU's memory full) leaves the others.
void CudaContext::setUpRelays() {
  relaysTried_ = true;
  std::string why;
  for (CUcontext peer : backend_.relayContexts(dev_, &why)) {
    auto relay = std::make_unique<CopyRelay>(drv(), ctx_, peer);
    if (relay->setUp(&why))
      relays_.push_back(std::move(relay));
  }
  if (relays_.empty())
    logInfo("multipath copies off for this session: " + why);
  else
    logInfo("this session's large uploads also go through " +
            std::to_string(relays_.size()) + " other GPU(s) (multipath)" +
            (why.empty() ? "" : "; not through one: " + why));
}

// Every relay forks before the direct part is enqueued on `stream`, so no
// part waits for another; the parts start on page boundaries.
CUresult CudaContext::copyThroughRelays(uint64_t dst, const uint8_t *src,
                                        uint64_t size, CUstream stream) {
  const uint64_t kAlign = 4096;
  uint64_t part = size / (relays_.size() + 1) / kAlign * kAlign;
  uint64_t direct = size - part * relays_.size();
  CUresult r = CUDA_SUCCESS;
  for (auto &relay : relays_)
    if (r == CUDA_SUCCESS)
      r = relay->fork(stream);
  if (r == CUDA_SUCCESS)
    r = drv().cuMemcpyHtoDAsync(dst, src, direct, stream);
  uint64_t at = direct;
  for (auto &relay : relays_) {
    if (r == CUDA_SUCCESS)
      r = relay->send(dst + at, src + at, part);
    at += part;
  }
  for (auto &relay : relays_)
    if (r == CUDA_SUCCESS)
      r = relay->join(stream);
  return r;
}

OpStatus CudaContext::hostRegister(uint8_t *host, uint64_t size) {
  const unsigned kPortable = 0x01; // CU_MEMHOSTREGISTER_PORTABLE
  return check(drv().cuMemHostRegister(host, size, kPortable));
}

// Like hostFree, without making this context current: the executor keeps
// track of which one is, and a portable registration belongs to them all.
void CudaContext::hostUnregister(uint8_t *host) {
  drv().cuMemHostUnregister(host);
}

OpStatus CudaContext::copyD2HToHostAlloc(uint8_t *dst, uint64_t src,
                                         uint64_t size, NativeHandle s) {
  return check(drv().cuMemcpyDtoHAsync(dst, src, size, toStream(s)));
}

// Straight into the registered pages; the stream's sync is the wait the
// staging path does with its slot's event.
OpStatus CudaContext::copyD2HRegistered(uint8_t *dst, uint64_t src,
                                        uint64_t size, NativeHandle s) {
  OpStatus st = check(drv().cuMemcpyDtoHAsync(dst, src, size, toStream(s)));
  if (st.ok())
    st = check(drv().cuStreamSynchronize(toStream(s)));
  return st;
}

OpStatus CudaContext::copyD2H(uint8_t *dst, uint64_t src, uint64_t size,
                              NativeHandle s) {
  return readD2H(
      src, size, s,
      [dst](const uint8_t *data, uint64_t offset, uint64_t n) {
        std::memcpy(dst + offset, data, n);
      },
      0);
}

// Each piece's copy is enqueued before the previous piece is consumed, so
// the GPU copies piece k+1 while `consume` handles piece k. Two pieces are
// in flight at most; the slots rotate through four (or the two wide ones),
// so the one still being consumed is never taken again.
OpStatus CudaContext::readD2H(uint64_t src, uint64_t size, NativeHandle s,
                              const ChunkConsumer &consume,
                              uint64_t pieceBytes) {
  bool wide = pieceBytes > kStagingSlotBytes && size > kStagingSlotBytes;
  uint64_t piece = wide ? pieceBytes : kStagingSlotBytes;
  struct Piece {
    Slot *slot = nullptr;
    uint64_t offset = 0, n = 0;
  };
  auto finish = [&](const Piece &p) {
    OpStatus st = check(drv().cuEventSynchronize(p.slot->done));
    if (st.ok())
      consume(static_cast<const uint8_t *>(p.slot->host), p.offset, p.n);
    return st;
  };
  Piece pending;
  for (uint64_t done = 0; done < size;) {
    Piece next;
    next.offset = done;
    next.n = std::min<uint64_t>(size - done, piece);
    OpStatus st = wide ? takeWideSlot(piece, &next.slot) : takeSlot(&next.slot);
    if (st.ok())
      st = check(drv().cuMemcpyDtoHAsync(next.slot->host, src + done, next.n,
                                         toStream(s)));
    if (st.ok())
      st = check(drv().cuEventRecord(next.slot->done, toStream(s)));
    if (st.ok() && pending.slot)
      st = finish(pending);
    if (!st.ok())
      return st;
    pending = next;
    done += next.n;
  }
  return pending.slot ? finish(pending) : OpStatus::success();
}

OpStatus CudaContext::copyD2D(uint64_t dst, uint64_t src, uint64_t size,
                              NativeHandle s) {
  return check(drv().cuMemcpyDtoDAsync(dst, src, size, toStream(s)));
}

OpStatus CudaContext::copyPeer(uint64_t dst, DeviceContext &dstCtx,
                               uint64_t src, DeviceContext &srcCtx,
                               uint64_t size, NativeHandle s) {
  // Both are contexts of this backend (the executor pairs them).
  CUcontext d = static_cast<CudaContext &>(dstCtx).ctx_;
  CUcontext from = static_cast<CudaContext &>(srcCtx).ctx_;
  return check(drv().cuMemcpyPeerAsync(dst, d, src, from, size, toStream(s)));
}

OpStatus CudaContext::setProfiling(bool start) {
  return check(start ? drv().cuProfilerStart() : drv().cuProfilerStop());
}

OpStatus CudaContext::setLimit(int limit, uint64_t value) {
  return check(drv().cuCtxSetLimit(CUlimit(limit), size_t(value)));
}

OpStatus CudaContext::streamSetAttribute(NativeHandle stream,
                                         const StreamAttributeValue &v) {
  CUstreamAttrValue value = {};
  switch (v.attribute) {
  case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    value.accessPolicyWindow.base_ptr =
        reinterpret_cast<void *>(uintptr_t(v.windowBase));
    value.accessPolicyWindow.num_bytes = v.windowBytes;
    value.accessPolicyWindow.hitRatio = v.hitRatio;
    value.accessPolicyWindow.hitProp = CUaccessProperty(v.hitProperty);
    value.accessPolicyWindow.missProp = CUaccessProperty(v.missProperty);
    break;
  case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    value.syncPolicy = CUsynchronizationPolicy(v.value);
    break;
  case CU_STREAM_ATTRIBUTE_PRIORITY:
    value.priority = v.value;
    break;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
    value.memSyncDomain = CUlaunchMemSyncDomain(v.value);
    break;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    value.memSyncDomainMap.default_ = v.domainDefault;
    value.memSyncDomainMap.remote = v.domainRemote;
    break;
  default:
    return OpStatus::fail(kErrInvalidValue,
                          "stream attribute " + std::to_string(v.attribute));
  }
  return check(drv().cuStreamSetAttribute(toStream(stream),
                                          CUstreamAttrID(v.attribute), &value));
}

OpStatus CudaContext::getLimit(int limit, uint64_t *value) {
  size_t v = 0;
  OpStatus st = check(drv().cuCtxGetLimit(&v, CUlimit(limit)));
  *value = v;
  return st;
}

OpStatus CudaContext::setPeerAccess(DeviceContext &peer, bool enable) {
  CUcontext p = static_cast<CudaContext &>(peer).ctx_;
  return check(enable ? drv().cuCtxEnablePeerAccess(p, 0)
                      : drv().cuCtxDisablePeerAccess(p));
}

OpStatus CudaContext::memset(uint64_t dst, uint8_t value, uint64_t size,
                             NativeHandle s) {
  return check(drv().cuMemsetD8Async(dst, value, size, toStream(s)));
}

OpStatus CudaContext::launch(const KernelInfo &kernel, const LaunchConfig &cfg,
                             const uint8_t *args) {
  // kernelParams: one pointer per parameter into the packed argument bytes.
  std::vector<void *> params;
  params.reserve(kernel.params.size());
  for (const ParamInfo &p : kernel.params)
    params.push_back(const_cast<uint8_t *>(args) + p.offset);
  if (cfg.cooperative || cfg.programmaticSerialization) {
    // cuLaunchKernelEx takes a CUkernel as well (CUDA >= 12.0).
    CUlaunchAttribute attrs[2] = {};
    unsigned n = 0;
    if (cfg.cooperative) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[n++].value.cooperative = 1;
    }
    if (cfg.programmaticSerialization) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[n++].value.programmaticStreamSerializationAllowed = 1;
    }
    CUlaunchConfig lc = {};
    lc.gridDimX = cfg.grid[0];
    lc.gridDimY = cfg.grid[1];
    lc.gridDimZ = cfg.grid[2];
    lc.blockDimX = cfg.block[0];
    lc.blockDimY = cfg.block[1];
    lc.blockDimZ = cfg.block[2];
    lc.sharedMemBytes = cfg.sharedMem;
    lc.hStream = toStream(cfg.stream);
    lc.attrs = attrs;
    lc.numAttrs = n;
    return check(drv().cuLaunchKernelEx(
        &lc, reinterpret_cast<CUfunction>(kernel.native),
        params.empty() ? nullptr : params.data(), nullptr));
  }
  // A CUkernel is accepted as a CUfunction with a current context (CUDA 12).
  return check(drv().cuLaunchKernel(
      reinterpret_cast<CUfunction>(kernel.native), cfg.grid[0], cfg.grid[1],
      cfg.grid[2], cfg.block[0], cfg.block[1], cfg.block[2], cfg.sharedMem,
      toStream(cfg.stream), params.empty() ? nullptr : params.data(), nullptr));
}

OpStatus CudaContext::streamCreate(uint32_t flags, int32_t priority,
                                   NativeHandle *stream) {
  CUstream s = nullptr;
  OpStatus st = check(drv().cuStreamCreateWithPriority(&s, flags, priority));
  *stream = reinterpret_cast<NativeHandle>(s);
  return st;
}
OpStatus CudaContext::streamDestroy(NativeHandle s) {
  // cuBLAS handles outlive streams (ggml keeps one per device for the
  // process): they must not touch this one once it is gone.
  if (blas_)
    blas_->streamDestroyed(s);
  if (packing_.slot && packing_.stream == toStream(s)) {
    OpStatus st = closePacking();
    if (!st.ok())
      return st;
  }
  return check(drv().cuStreamDestroy(toStream(s)));
}
OpStatus CudaContext::streamSynchronize(NativeHandle s) {
  return check(drv().cuStreamSynchronize(toStream(s)));
}
OpStatus CudaContext::streamQuery(NativeHandle s) {
  return check(drv().cuStreamQuery(toStream(s)));
}
OpStatus CudaContext::deviceSynchronize() {
  return check(drv().cuCtxSynchronize());
}
OpStatus CudaContext::eventCreate(uint32_t flags, NativeHandle *event) {
  CUevent e = nullptr;
  OpStatus st = check(drv().cuEventCreate(&e, flags));
  *event = reinterpret_cast<NativeHandle>(e);
  return st;
}
OpStatus CudaContext::eventDestroy(NativeHandle e) {
  return check(drv().cuEventDestroy(toEvent(e)));
}
OpStatus CudaContext::eventRecord(NativeHandle e, NativeHandle s) {
  return check(drv().cuEventRecord(toEvent(e), toStream(s)));
}
OpStatus CudaContext::eventSynchronize(NativeHandle e) {
  return check(drv().cuEventSynchronize(toEvent(e)));
}
OpStatus CudaContext::eventQuery(NativeHandle e) {
  return check(drv().cuEventQuery(toEvent(e)));
}
OpStatus CudaContext::eventElapsed(NativeHandle a, NativeHandle b, float *ms) {
  return check(drv().cuEventElapsedTime(ms, toEvent(a), toEvent(b)));
}
OpStatus CudaContext::streamWaitEvent(NativeHandle s, NativeHandle e,
                                      uint32_t flags) {
  return check(drv().cuStreamWaitEvent(toStream(s), toEvent(e), flags));
}

OpStatus CudaContext::symbolAddress(const VariableInfo &var, uint64_t *addr,
                                    uint64_t *size) {
  auto it = symbols_.find(var.id);
  if (it == symbols_.end()) {
    // Each context has its own copy of a module's globals: resolve once.
    CUdeviceptr p = 0;
    size_t bytes = 0;
    OpStatus st = check(drv().cuLibraryGetGlobal(
        &p, &bytes, CUlibrary(var.library), var.name.c_str()));
    if (!st.ok())
      return st;
    it = symbols_.emplace(var.id, std::make_pair(uint64_t(p), uint64_t(bytes)))
             .first;
  }
  *addr = it->second.first;
  *size = it->second.second;
  return OpStatus::success();
}

// Applies to the kernel on this device for every context (what cudart's
// cudaFuncSetAttribute does for library kernels); the attributes that can
// be set only raise limits or give hints, so other sessions are unaffected
// in what they compute.
OpStatus CudaContext::setKernelAttribute(const KernelInfo &kernel,
                                         int attribute, int value) {
  return check(drv().cuKernelSetAttribute(
      CUfunction_attribute(attribute), value, CUkernel(kernel.native), dev_));
}

// The kernel's CUkernel stands for a CUfunction of the current context, as
// in launches; a cluster dimension of all 0s leaves the kernel's own.
OpStatus CudaContext::clusterOccupancy(const KernelInfo &kernel,
                                       const ClusterQuery &q, int *answer) {
  CUlaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (q.cluster[0] || q.cluster[1] || q.cluster[2]) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = q.cluster[0];
    attrs[n].value.clusterDim.y = q.cluster[1];
    attrs[n++].value.clusterDim.z = q.cluster[2];
  }
  if (q.schedulingPolicy) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    attrs[n++].value.clusterSchedulingPolicyPreference =
        CUclusterSchedulingPolicy(q.schedulingPolicy);
  }
  CUlaunchConfig lc = {};
  lc.gridDimX = q.launch.grid[0];
  lc.gridDimY = q.launch.grid[1];
  lc.gridDimZ = q.launch.grid[2];
  lc.blockDimX = q.launch.block[0];
  lc.blockDimY = q.launch.block[1];
  lc.blockDimZ = q.launch.block[2];
  lc.sharedMemBytes = q.launch.sharedMem;
  lc.hStream = toStream(q.launch.stream);
  lc.attrs = n ? attrs : nullptr;
  lc.numAttrs = n;
  auto f = reinterpret_cast<CUfunction>(kernel.native);
  return check(q.potentialSize
                   ? drv().cuOccupancyMaxPotentialClusterSize(answer, f, &lc)
                   : drv().cuOccupancyMaxActiveClusters(answer, f, &lc));
}

OpStatus CudaContext::memAddressReserve(uint64_t size, uint64_t alignment,
                                        uint64_t *addr) {
  CUdeviceptr p = 0;
  OpStatus st = check(drv().cuMemAddressReserve(&p, size, alignment, 0, 0));
  if (st.ok()) {
    *addr = p;
    vaRanges_[p] = size;
  }
  return st;
}

OpStatus CudaContext::memAddressFree(uint64_t addr, uint64_t size) {
  OpStatus st = check(drv().cuMemAddressFree(addr, size));
  if (st.ok())
    vaRanges_.erase(addr);
  return st;
}

OpStatus CudaContext::memCreate(uint64_t size, bool compressible,
                                NativeHandle *handle, bool *compressed) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev_;
  if (compressible)
    prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  CUmemGenericAllocationHandle h = 0;
  OpStatus st = check(drv().cuMemCreate(&h, size, &prop, 0));
  *compressed = false;
  if (st.ok() && compressible) {
    // The driver may give plain memory instead: ask what it gave.
    CUmemAllocationProp got = {};
    *compressed =
        drv().cuMemGetAllocationPropertiesFromHandle(&got, h) == CUDA_SUCCESS &&
        got.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC;
  }
  if (st.ok()) {
    *handle = NativeHandle(h);
    physical_[*handle] = size;
    backend_.inUse += size;
  }
  return st;
}

OpStatus CudaContext::memRelease(NativeHandle handle) {
  OpStatus st = check(drv().cuMemRelease(CUmemGenericAllocationHandle(handle)));
  auto it = physical_.find(handle);
  if (st.ok() && it != physical_.end()) {
    backend_.inUse -= it->second;
    physical_.erase(it);
  }
  return st;
}

OpStatus CudaContext::memMap(uint64_t addr, uint64_t size, uint64_t offset,
                             NativeHandle handle) {
  OpStatus st = check(drv().cuMemMap(addr, size, offset,
                                     CUmemGenericAllocationHandle(handle), 0));
  if (st.ok())
    vmmMapped_[addr] = size;
  return st;
}

// The executor only passes runs of whole mappings.
OpStatus CudaContext::memUnmap(uint64_t addr, uint64_t size) {
  OpStatus st = check(drv().cuMemUnmap(addr, size));
  if (st.ok())
    vmmMapped_.erase(vmmMapped_.lower_bound(addr),
                     vmmMapped_.lower_bound(addr + size));
  return st;
}

OpStatus CudaContext::memSetAccess(uint64_t addr, uint64_t size,
                                   const std::vector<int> &devices) {
  std::vector<CUmemAccessDesc> access(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    access[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access[i].location.id = backend_.devs[size_t(devices[i])];
    access[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  return check(drv().cuMemSetAccess(addr, size, access.data(), access.size()));
}

} // namespace

std::unique_ptr<Backend> makeCudaBackend(const std::vector<int> &ordinals,
                                         const CudaSettings &settings,
                                         std::string *error) {
  auto b = std::make_unique<CudaBackend>(ordinals, settings);
  if (!b->init(error))
    return nullptr;
  return b;
}

} // namespace rc::server
