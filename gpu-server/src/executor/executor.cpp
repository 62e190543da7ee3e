#include "executor/executor.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rc::server {

namespace {

OpStatus fail(int code, std::string detail) {
  return OpStatus::fail(code, std::move(detail));
}

} // namespace

Executor::Executor(SessionSymbols symbols, Backend &backend,
                   std::unique_ptr<DeviceContext> first)
    : names_(std::move(symbols)), backend_(backend),
      contexts_(size_t(backend.deviceCount())) {
  contexts_[0] = std::move(first);
  ctx_ = threadCurrent_ = contexts_[0].get(); // createContext made it current
  fenceEvents_.resize(contexts_.size());
}

Executor::~Executor() {
  settleCacheCopies(true); // before the contexts of their events go
  finishSharedUploads();   // before the shared regions go
  destroyLibObjects();
  releaseReply();
  dropUploadRing();
  for (auto &kv : modules_)
    backend_.releaseModule(kv.second);
}

const UploadRing *Executor::createUploadRing(uint64_t size, bool shared,
                                             std::string *why) {
  dropUploadRing();
  if (!pinnedBudgets_.take(size, why))
    return nullptr;
  uploadRing_ = UploadRing::create(*contexts_[0], size, shared, why);
  if (uploadRing_)
    ringHeld_ = size;
  else
    pinnedBudgets_.give(size);
  return uploadRing_.get();
}

void Executor::dropUploadRing() {
  uploadRing_.reset();
  pinnedBudgets_.give(ringHeld_);
  ringHeld_ = 0;
}

std::vector<int> Executor::devicesUsed() const {
  std::vector<int> used;
  for (size_t i = 0; i < contexts_.size(); ++i)
    if (contexts_[i])
      used.push_back(int(i));
  return used;
}

OpStatus Executor::checkDevice(int device) const {
  if (device >= 0 && device < int(contexts_.size()))
    return OpStatus::success();
  return fail(kErrInvalidDevice, "device " + std::to_string(device) +
                                     " does not exist (this server has " +
                                     std::to_string(contexts_.size()) +
                                     " device(s))");
}

OpStatus Executor::contextOf(int device, DeviceContext **out) {
  OpStatus st = checkDevice(device);
  if (!st.ok())
    return st;
  std::unique_ptr<DeviceContext> &c = contexts_[size_t(device)];
  if (!c) {
    std::string error;
    c = backend_.createContext(device, &error);
    if (!c)
      return fail(kErrInitialization, "cannot create a context on device " +
                                          std::to_string(device) + ": " +
                                          error);
    threadCurrent_ = c.get();
  }
  *out = c.get();
  return st;
}

OpStatus Executor::bind(int device) {
  DeviceContext *c = nullptr;
  OpStatus st = contextOf(device, &c);
  if (!st.ok())
    return st;
  if (threadCurrent_ != c) {
    c->activate();
    threadCurrent_ = c;
  }
  ctx_ = c;
  bound_ = device;
  return st;
}

bool Executor::inSession(uint64_t addr, uint64_t size, int *device) const {
  for (const auto *table : {&allocations_, &symbolRanges_}) {
    auto it = table->upper_bound(addr);
    if (it == table->begin())
      continue;
    --it;
    uint64_t off = addr - it->first;
    if (off <= it->second.size && size <= it->second.size - off) {
      if (device)
        *device = it->second.device;
      return true;
    }
  }
  int mapped = 0;
  if (!vmm_.contains(addr, size, &mapped))
    return false;
  if (device)
    *device = mapped;
  return true;
}

OpStatus Executor::checkRange(const char *role, uint64_t addr, uint64_t size,
                              int *device) const {
  if (inSession(addr, size, device))
    return OpStatus::success();
  return fail(kErrInvalidValue, std::string(role) + " range " +
                                    hexAddress(addr) + " + " +
                                    std::to_string(size) +
                                    " bytes is not inside one allocation of "
                                    "this session");
}

OpStatus Executor::bindStream(uint64_t handle, NativeHandle *out) {
  if (streamOverride_) { // a graph node runs on its graph's stream
    *out = streamOverride_->native;
    return bind(streamOverride_->device);
  }
  if (handle == 0 || handle == kLegacyStreamHandle) {
    *out = 0;
    return bind(current_); // each device has its own legacy stream
  }
  if (handle == kPerThreadStreamHandle) {
    *out = kPerThreadStream;
    return bind(current_);
  }
  auto it = streams_.find(handle);
  if (it == streams_.end())
    return fail(kErrInvalidResourceHandle,
                "unknown stream " + hexAddress(handle));
  *out = it->second.native;
  return bind(it->second.device);
}

OpStatus Executor::event(uint64_t handle, NativeHandle *out) const {
  auto it = events_.find(handle);
  if (it == events_.end())
    return fail(kErrInvalidResourceHandle,
                "unknown event " + hexAddress(handle));
  *out = it->second.native;
  return OpStatus::success();
}

OpStatus Executor::bindEvent(uint64_t handle, NativeHandle *out) {
  OpStatus st = event(handle, out);
  return st.ok() ? bind(events_.find(handle)->second.device) : st;
}

OpStatus Executor::copyD2D(uint64_t dst, uint64_t src, uint64_t size,
                           NativeHandle s) {
  int from = 0, to = 0;
  OpStatus st;
  if (!(st = checkRange("source", src, size, &from)).ok() ||
      !(st = checkRange("destination", dst, size, &to)).ok())
    return st;
  if (from == to && from == bound_)
    return ctx_->copyD2D(dst, src, size, s);
  // Between devices (cudaMemcpyPeerAsync, or a device-to-device copy of
  // unified addresses): both contexts exist, their memory is there.
  DeviceContext *srcCtx = nullptr, *dstCtx = nullptr;
  // Creating a context makes it current: bind the stream's device again.
  if (!(st = contextOf(from, &srcCtx)).ok() ||
      !(st = contextOf(to, &dstCtx)).ok() || !(st = bind(bound_)).ok())
    return st;
  return ctx_->copyPeer(dst, *dstCtx, src, *srcCtx, size, s);
}

OpStatus Executor::doPeerAccess(const wire::PeerAccess &c) {
  OpStatus st = checkDevice(c.peer());
  if (!st.ok())
    return st;
  if (c.peer() == bound_)
    return fail(kErrInvalidDevice, "a device is not its own peer");
  if (!backend_.canAccessPeer(bound_, c.peer()))
    return fail(kErrPeerAccessUnsupported, "device " + std::to_string(bound_) +
                                               " cannot access device " +
                                               std::to_string(c.peer()));
  DeviceContext *peer = nullptr, *self = ctx_;
  if (!(st = contextOf(c.peer(), &peer)).ok() || !(st = bind(bound_)).ok())
    return st;
  return self->setPeerAccess(*peer, c.enable());
}

OpStatus Executor::variable(uint64_t id, const VariableInfo **out) {
  std::string why;
  const VariableInfo *v = names_.variable(id, &why);
  if (!v)
    return fail(kErrInvalidSymbol, why);
  *out = v;
  return OpStatus::success();
}

OpStatus Executor::symbol(const VariableInfo &v, uint64_t *addr) {
  auto key = std::make_pair(bound_, v.id);
  auto it = symbols_.find(key);
  if (it == symbols_.end()) {
    uint64_t a = 0, size = 0;
    OpStatus st = ctx_->symbolAddress(v, &a, &size);
    if (!st.ok())
      return st;
    it = symbols_.emplace(key, std::make_pair(a, size)).first;
    // Kernels may be handed a variable's address (cudaGetSymbolAddress).
    symbolRanges_[a] = Range{size, bound_, nullptr};
  }
  *addr = it->second.first;
  return OpStatus::success();
}

OpStatus Executor::syncResult(OpStatus st) const {
  if (!st.ok() && !lastLaunch_.empty())
    st.detail += "; last launch in this session: " + lastLaunch_;
  return st;
}

OpStatus Executor::doMalloc(const wire::Malloc &c, ResultData &r) {
  if (c.size() > boundDevice().totalMem)
    return fail(kErrMemoryAllocation,
                std::to_string(c.size()) + " bytes exceed the device memory");
  std::string why;
  std::shared_ptr<const HeldBytes> charge =
      HeldBytes::take(deviceBudgets_, c.size(), &why);
  if (!charge)
    return fail(kErrMemoryAllocation, why);
  uint64_t addr = 0;
  OpStatus st = ctx_->malloc(c.size(), &addr);
  if (!st.ok())
    return st;
  if (addr)
    allocations_[addr] = Range{c.size(), bound_, std::move(charge)};
  r.addr = addr;
  return st;
}

OpStatus Executor::doFree(const wire::Free &c) {
  if (c.addr() == 0)
    return OpStatus::success(); // cudaFree(nullptr) is a no-op
  auto it = allocations_.find(c.addr());
  if (it == allocations_.end())
    return fail(kErrInvalidValue,
                hexAddress(c.addr()) + " is not an allocation of this session");
  // The content cache's copies back run on a stream of their own: none
  // may read memory that is gone.
  settleCacheCopies(true);
  OpStatus st = bind(it->second.device); // cudaFree works from any device
  if (st.ok())
    st = ctx_->free(c.addr());
  if (st.ok())
    allocations_.erase(it);
  return st;
}

// The launch configuration of a Launch or LaunchFunction, checked against
// the limits the driver enforces (from the device's attributes, so the host
// test device rejects what a GPU would).
OpStatus Executor::launchConfig(const flatbuffers::Vector<uint32_t> *grid,
                                const flatbuffers::Vector<uint32_t> *block,
                                uint32_t sharedMem, uint64_t stream,
                                LaunchConfig *out) {
  LaunchConfig &cfg = *out;
  if (!grid || grid->size() != 3 || !block || block->size() != 3)
    return fail(kErrInvalidConfiguration, "grid and block need 3 dimensions");
  OpStatus st = bindStream(stream, &cfg.stream);
  if (!st.ok())
    return st;
  const auto &attr = boundDevice().attributes;
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    cfg.grid[i] = grid->Get(i);
    cfg.block[i] = block->Get(i);
    if (cfg.grid[i] == 0 || cfg.block[i] == 0)
      return fail(kErrInvalidConfiguration,
                  "grid or block dimension of size 0");
    threads *= cfg.block[i];
  }
  auto attrOr = [&](CUdevice_attribute a, int32_t dflt) {
    size_t i = size_t(a);
    return i < attr.size() && attr[i] > 0 ? uint64_t(attr[i]) : uint64_t(dflt);
  };
  const uint64_t maxThreads =
      attrOr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
  if (threads > maxThreads)
    return fail(kErrInvalidConfiguration, std::to_string(threads) +
                                              " threads per block exceed " +
                                              std::to_string(maxThreads));
  for (int i = 0; i < 3; ++i) {
    auto blockAttr =
        CUdevice_attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i);
    auto gridAttr = CUdevice_attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i);
    if (cfg.block[i] > attrOr(blockAttr, 1024) ||
        cfg.grid[i] > attrOr(gridAttr, 65535))
      return fail(
          kErrInvalidConfiguration,
          "grid (" + std::to_string(cfg.grid[0]) + "," +
              std::to_string(cfg.grid[1]) + "," + std::to_string(cfg.grid[2]) +
              ") block (" + std::to_string(cfg.block[0]) + "," +
              std::to_string(cfg.block[1]) + "," +
              std::to_string(cfg.block[2]) + ") exceeds the device's limits");
  }
  cfg.sharedMem = sharedMem;
  const uint64_t maxShared =
      attrOr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 49152);
  if (cfg.sharedMem > maxShared)
    return fail(kErrInvalidValue,
                std::to_string(cfg.sharedMem) +
                    " bytes of dynamic shared memory exceed " +
                    std::to_string(maxShared));
  return OpStatus::success();
}

// A launch's arguments, which must be exactly the kernel's size, copied to
// aligned storage (argBuffer_): the driver reads parameters in place, and a
// flatbuffer vector is only 4-byte aligned.
OpStatus Executor::stageArgs(const flatbuffers::Vector<uint8_t> *args,
                             uint32_t argsSize) {
  size_t got = args ? args->size() : 0;
  if (got != argsSize)
    return fail(kErrInvalidValue, std::to_string(got) +
                                      " bytes of arguments, the kernel takes " +
                                      std::to_string(argsSize));
  argBuffer_.assign(argsSize + 16, 0);
  if (got)
    std::memcpy(argBuffer_.data(), args->data(), got);
  return OpStatus::success();
}

OpStatus Executor::doLaunch(const wire::Launch &c, std::string *what) {
  std::string why;
  const KernelInfo *k = sessionKernel(c.kernel_id(), &why);
  if (!k)
    return fail(kErrInvalidDeviceFunction, why);
  *what = "launch of " + k->describe();

  LaunchConfig cfg;
  OpStatus st =
      launchConfig(c.grid(), c.block(), c.shared_mem(), c.stream(), &cfg);
  if (!st.ok())
    return st;
  const auto &attr = boundDevice().attributes;
  auto attrOr = [&](CUdevice_attribute a, int32_t dflt) {
    size_t i = size_t(a);
    return i < attr.size() && attr[i] > 0 ? uint64_t(attr[i]) : uint64_t(dflt);
  };
  cfg.cooperative = c.cooperative();
  cfg.programmaticSerialization = c.programmatic_serialization();
  if (cfg.cooperative && !attrOr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0))
    return fail(kErrNotSupported, "the device has no cooperative launch");

  if (!(st = stageArgs(c.args(), k->argsSize)).ok())
    return st;
  for (size_t pi = 0; pi < k->params.size(); ++pi)
    for (uint32_t off : k->params[pi].pointerOffsets) {
      uint64_t ptr;
      std::memcpy(&ptr, argBuffer_.data() + off, 8);
      // One past the end is a valid pointer value (end iterators), so a
      // pointer is checked as a zero-length range.
      if (ptr != 0 && !inSession(ptr, 0))
        return fail(
            kErrInvalidValue,
            "parameter " + std::to_string(pi) + " (" + k->params[pi].name +
                ") pointer " + hexAddress(ptr) +
                (off != k->params[pi].offset
                     ? " at byte " + std::to_string(off - k->params[pi].offset)
                     : std::string()) +
                " is not inside any allocation of this session");
    }
  lastLaunch_ = k->describe();
  if (launchSink_) // validating a graph node: not launched (graph_executor)
    return launchSink_(*k, cfg, argBuffer_.data());
  return ctx_->launch(*k, cfg, argBuffer_.data());
}

// One handler per command; execute() (executor_dispatch.cpp) has set
// *a.what to the command table's name of the call and bound the current
// device.

OpStatus Executor::handle(const wire::Malloc &c, Answer &a) {
  OpStatus st = doMalloc(c, a.result);
  if (st.ok())
    a.give();
  return st;
}

OpStatus Executor::handle(const wire::Free &c, Answer &) { return doFree(c); }

OpStatus Executor::handle(const wire::MemcpyH2D &c, Answer &) {
  NativeHandle s = 0;
  bool shared = c.host_region() != 0; // the bytes are in shared host memory
  uint64_t n = shared ? c.size() : c.data() ? c.data()->size() : 0;
  OpStatus st;
  // Zero-byte copies are no-ops, as in CUDA, wherever they point.
  if (!(st = bindStream(c.stream(), &s)).ok() || n == 0 ||
      !(st = checkRange("destination", c.dst(), n)).ok())
    return st;
  return shared ? uploadShared(c, n, s)
                : ctx_->copyH2D(c.dst(), c.data()->data(), n, s);
}

OpStatus Executor::uploadShared(const wire::MemcpyH2D &c, uint64_t n,
                                NativeHandle stream) {
  uint8_t *src = nullptr;
  OpStatus st = sharedHost_.locate(c.host_region(), c.host_offset(), n, &src);
  // Straight from the registered pages, in stream order: no staging, no
  // wait. Before such pages are unmapped, the device has passed the read.
  if (st.ok() &&
      (st = ctx_->copyH2DFromHostAlloc(c.dst(), src, n, stream)).ok())
    sharedUploadDevices_.insert(bound_);
  if (st.ok() && metrics_)
    metrics_->bytesInShared.add(n);
  return st;
}

void Executor::finishSharedUploads() {
  for (int device : sharedUploadDevices_)
    if (bind(device).ok())
      ctx_->deviceSynchronize();
  sharedUploadDevices_.clear();
}

OpStatus Executor::handle(const wire::MemcpyH2DRing &c, Answer &) {
  if (!uploadRing_)
    return fail(kErrInvalidValue, "this session has no upload ring");
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = bindStream(c.stream(), &s)).ok() ||
      !(st = checkRange("destination", c.dst(), c.size())).ok())
    return st;
  return uploadRing_->copy(*ctx_, c.dst(), c.ring_offset(), c.size(),
                           c.ring_end(), s);
}

OpStatus Executor::handle(const wire::MemcpyD2H &c, Answer &a) {
  bool shared = c.host_region() != 0; // no payload in the reply
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = bindStream(c.stream(), &s)).ok() ||
      (c.size() && !(st = checkRange("source", c.src(), c.size())).ok()))
    return st;
  st = shared    ? readBackShared(c, s, a.result)
       : c.rma() ? readBackRemote(c, s, a.result)
                 : readBack(c.src(), c.size(), s, a.result);
  if (st.ok())
    a.give();
  return st;
}

OpStatus Executor::handle(const wire::MemcpyD2D &c, Answer &) {
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = bindStream(c.stream(), &s)).ok() || c.size() == 0)
    return st;
  return copyD2D(c.dst(), c.src(), c.size(), s);
}

OpStatus Executor::handle(const wire::Memset &c, Answer &) {
  NativeHandle s = 0;
  OpStatus st;
  if (!(st = bindStream(c.stream(), &s)).ok() || c.size() == 0 ||
      !(st = checkRange("destination", c.dst(), c.size())).ok())
    return st;
  return ctx_->memset(c.dst(), c.value(), c.size(), s);
}

OpStatus Executor::handle(const wire::Launch &c, Answer &a) {
  return doLaunch(c, a.what);
}

OpStatus Executor::handle(const wire::StreamCreate &c, Answer &) {
  if (c.stream() <= kPerThreadStreamHandle || streams_.count(c.stream()))
    return fail(kErrInvalidValue, "stream handle " + hexAddress(c.stream()) +
                                      " is reserved or already in use");
  NativeHandle s = 0;
  OpStatus st =
      ctx_->streamCreate(c.flags(), streamPriority_.value_or(c.priority()), &s);
  if (st.ok())
    streams_[c.stream()] = OnDevice{s, bound_};
  return st;
}

OpStatus Executor::handle(const wire::StreamDestroy &c, Answer &) {
  auto it = streams_.find(c.stream());
  if (it == streams_.end())
    return fail(kErrInvalidResourceHandle,
                "unknown stream " + hexAddress(c.stream()));
  OpStatus st;
  if (!(st = bind(it->second.device)).ok())
    return st;
  forgetLibraryStream(reinterpret_cast<void *>(it->second.native));
  if (!(st = ctx_->streamDestroy(it->second.native)).ok())
    return st;
  forgetStream(it->first, it->second.device);
  streams_.erase(it);
  return st;
}

OpStatus Executor::handle(const wire::StreamSynchronize &c, Answer &) {
  NativeHandle s = 0;
  OpStatus st = bindStream(c.stream(), &s);
  if (!st.ok())
    return st;
  // Deferred: noteCommandDone() makes it a pending sync.
  return st;
}

OpStatus Executor::handle(const wire::StreamQuery &c, Answer &a) {
  NativeHandle s = 0;
  OpStatus st = bindStream(c.stream(), &s);
  if (!st.ok())
    return st;
  st = ctx_->streamQuery(s);
  if (st.code == kErrNotReady)
    st = OpStatus::success(), a.result.code = kErrNotReady;
  if (st.ok())
    a.give();
  return syncResult(st);
}

OpStatus Executor::handle(const wire::DeviceSynchronize &, Answer &) {
  return syncResult(ctx_->deviceSynchronize());
}

OpStatus Executor::handle(const wire::EventCreate &c, Answer &) {
  if (c.event() == 0 || events_.count(c.event()))
    return fail(kErrInvalidValue, "event handle " + hexAddress(c.event()) +
                                      " is reserved or already in use");
  NativeHandle e = 0;
  OpStatus st = ctx_->eventCreate(c.flags(), &e);
  if (st.ok())
    events_[c.event()] = OnDevice{e, bound_};
  return st;
}

OpStatus Executor::handle(const wire::EventDestroy &c, Answer &) {
  auto it = events_.find(c.event());
  if (it == events_.end())
    return fail(kErrInvalidResourceHandle,
                "unknown event " + hexAddress(c.event()));
  OpStatus st;
  if (!(st = bind(it->second.device)).ok() ||
      !(st = ctx_->eventDestroy(it->second.native)).ok())
    return st;
  events_.erase(it);
  return st;
}

OpStatus Executor::handle(const wire::EventRecord &c, Answer &) {
  NativeHandle s = 0, e = 0;
  OpStatus st;
  if (!(st = event(c.event(), &e)).ok() ||
      !(st = bindStream(c.stream(), &s)).ok())
    return st;
  return ctx_->eventRecord(e, s);
}

OpStatus Executor::handle(const wire::EventSynchronize &c, Answer &) {
  NativeHandle e = 0;
  OpStatus st = bindEvent(c.event(), &e);
  if (!st.ok())
    return st;
  return syncResult(ctx_->eventSynchronize(e));
}

OpStatus Executor::handle(const wire::EventQuery &c, Answer &a) {
  NativeHandle e = 0;
  OpStatus st = bindEvent(c.event(), &e);
  if (!st.ok())
    return st;
  st = ctx_->eventQuery(e);
  if (st.code == kErrNotReady)
    st = OpStatus::success(), a.result.code = kErrNotReady;
  if (st.ok())
    a.give();
  return syncResult(st);
}

OpStatus Executor::handle(const wire::EventElapsedTime &c, Answer &a) {
  NativeHandle e = 0, e2 = 0;
  OpStatus st;
  if (!(st = bindEvent(c.start(), &e)).ok() || !(st = event(c.end(), &e2)).ok())
    return st;
  float ms = 0;
  if (!(st = ctx_->eventElapsed(e, e2, &ms)).ok())
    return st;
  a.result.value = ms;
  a.give();
  return st;
}

OpStatus Executor::handle(const wire::StreamWaitEvent &c, Answer &) {
  NativeHandle s = 0, e = 0;
  OpStatus st;
  // The event may be another device's: CUDA waits across devices.
  if (!(st = bindStream(c.stream(), &s)).ok() ||
      !(st = event(c.event(), &e)).ok())
    return st;
  return ctx_->streamWaitEvent(s, e, c.flags());
}

OpStatus Executor::handle(const wire::SymbolWrite &c, Answer &a) {
  const VariableInfo *v = nullptr;
  uint64_t base = 0, n = c.data() ? c.data()->size() : 0;
  OpStatus st = variable(c.variable_id(), &v);
  if (!st.ok())
    return st;
  *a.what += " (" + v->name + ")";
  if (c.offset() > v->size || n > v->size - c.offset())
    return fail(kErrInvalidValue, "offset " + std::to_string(c.offset()) +
                                      " + " + std::to_string(n) +
                                      " bytes exceed the variable's " +
                                      std::to_string(v->size) + " bytes");
  NativeHandle s = 0;
  if (!(st = bindStream(c.stream(), &s)).ok() ||
      !(st = symbol(*v, &base)).ok() || n == 0)
    return st;
  return ctx_->copyH2D(base + c.offset(), c.data()->data(), n, s);
}

OpStatus Executor::handle(const wire::SymbolRead &c, Answer &a) {
  const VariableInfo *v = nullptr;
  uint64_t base = 0;
  OpStatus st = variable(c.variable_id(), &v);
  if (!st.ok())
    return st;
  *a.what += " (" + v->name + ")";
  if (c.offset() > v->size || c.size() > v->size - c.offset())
    return fail(kErrInvalidValue, "offset " + std::to_string(c.offset()) +
                                      " + " + std::to_string(c.size()) +
                                      " bytes exceed the variable's " +
                                      std::to_string(v->size) + " bytes");
  NativeHandle s = 0;
  if (!(st = bindStream(c.stream(), &s)).ok() || !(st = symbol(*v, &base)).ok())
    return st;
  st = readBack(base + c.offset(), c.size(), s, a.result);
  if (st.ok())
    a.give();
  return st;
}

OpStatus Executor::handle(const wire::SymbolAddress &c, Answer &a) {
  const VariableInfo *v = nullptr;
  uint64_t base = 0;
  OpStatus st;
  if (!(st = variable(c.variable_id(), &v)).ok() ||
      !(st = symbol(*v, &base)).ok())
    return st;
  a.result.addr = base;
  a.result.value = double(v->size);
  a.give();
  return st;
}

OpStatus Executor::handle(const wire::SetDevice &c, Answer &) {
  // Binding creates the device's context now, so a failure names this.
  OpStatus st = bind(c.device());
  if (st.ok())
    current_ = bound_;
  return st;
}

OpStatus Executor::handle(const wire::PeerAccess &c, Answer &a) {
  *a.what =
      c.enable() ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess";
  return doPeerAccess(c);
}

OpStatus Executor::handle(const wire::ProfilerControl &c, Answer &a) {
  *a.what = c.start() ? "cudaProfilerStart" : "cudaProfilerStop";
  return ctx_->setProfiling(c.start());
}

OpStatus Executor::handle(const wire::DeviceLimit &c, Answer &a) {
  *a.what = c.set() ? "cudaDeviceSetLimit" : "cudaDeviceGetLimit";
  OpStatus st;
  if (c.set() && !(st = ctx_->setLimit(c.limit(), c.value())).ok())
    return st;
  uint64_t value = 0;
  if (!(st = ctx_->getLimit(c.limit(), &value)).ok())
    return st;
  a.result.addr = value;
  a.give();
  return st;
}

OpStatus Executor::handle(const wire::Goodbye &, Answer &) {
  goodbye_ = true;
  // CUDA writes what kernels printed when their context synchronizes or is
  // destroyed, so a program that exits right after a launch still prints
  // it. Synchronize every context now, on this thread, whose capture sends
  // that text with the Goodbye's reply (docs/server-internals/sessions.md
  // "Device printf"); the session's teardown would print it where no client
  // sees it. Errors of work nobody synchronized are not reported, as with
  // cudart at exit.
  for (size_t d = 0; d < contexts_.size(); ++d)
    if (contexts_[d] && bind(int(d)).ok())
      contexts_[d]->deviceSynchronize();
  return OpStatus::success();
}

void Executor::setBounds(uint64_t maxReplyBytes, uint64_t maxSharedHostBytes,
                         const Budgets &budgets) {
  maxReplyBytes_ = std::min(maxReplyBytes, kMaxReplyBytes);
  replyBudgets_ = BudgetSet{budgets.reply};
  pinnedBudgets_ = BudgetSet{budgets.tenantPinned, budgets.pinned};
  deviceBudgets_ = BudgetSet{budgets.tenantDevice};
  sharedHost_.setLimits(maxSharedHostBytes, pinnedBudgets_);
}

OpStatus Executor::reserveReply(uint64_t size) {
  if (size > maxReplyBytes_ - replyBytes_)
    return fail(kErrInvalidValue,
                "reading " + std::to_string(size) +
                    " more bytes would make this batch's reply exceed " +
                    std::to_string(maxReplyBytes_) +
                    " bytes (the server's RC_SERVER_MAX_REPLY_MIB); split "
                    "the read-back");
  std::string why;
  if (!replyBudgets_.take(size, &why))
    return fail(kErrMemoryAllocation,
                why + ": retry or read back less at once");
  replyBytes_ += size;
  replyHeld_ += size;
  return OpStatus::success();
}

void Executor::releaseReply() {
  replyBudgets_.give(replyHeld_);
  replyHeld_ = 0;
}

OpStatus Executor::readBack(uint64_t src, uint64_t size, NativeHandle stream,
                            ResultData &r) {
  if (size == 0)
    return OpStatus::success(); // no payload: the client expects 0 bytes
  OpStatus st = reserveReply(size);
  if (!st.ok())
    return st;
  // The builder may move its buffer on the next allocation: write now.
  uint8_t *dst = nullptr;
  r.payload = reply_->CreateUninitializedVector<uint8_t>(size, &dst);
  return syncResult(ctx_->copyD2H(dst, src, size, stream));
}

OpStatus Executor::readBackRemote(const wire::MemcpyD2H &c, NativeHandle stream,
                                  ResultData &r) {
  if (!remoteWriter_ || c.size() == 0)
    return readBack(c.src(), c.size(), stream, r);
  bool written = true;
  OpStatus st = ctx_->readD2H(
      c.src(), c.size(), stream,
      [&](const uint8_t *data, uint64_t offset, uint64_t n) {
        written = written &&
                  remoteWriter_(data, n, c.rma_addr() + offset, c.rma_key());
      },
      remotePieceBytes_ ? remotePieceBytes_() : 0);
  if (!st.ok())
    return st;
  if (!written) // the device bytes are unchanged: send them in the reply
    return readBack(c.src(), c.size(), stream, r);
  r.writtenRemotely = true;
  if (metrics_)
    metrics_->bytesOutRma.add(c.size());
  return st;
}

OpStatus Executor::readBackShared(const wire::MemcpyD2H &c, NativeHandle stream,
                                  ResultData &r) {
  uint8_t *dst = nullptr;
  OpStatus st =
      sharedHost_.locate(c.host_region(), c.host_offset(), c.size(), &dst);
  if (st.ok() && c.size())
    st = syncResult(ctx_->copyD2HRegistered(dst, c.src(), c.size(), stream));
  if (!st.ok())
    return st;
  r.writtenRemotely = true;
  if (metrics_)
    metrics_->bytesOutShared.add(c.size());
  return st;
}

bool Executor::run(const wire::Batch &batch, std::vector<ResultData> &results,
                   ErrorData *error, flatbuffers::FlatBufferBuilder &reply) {
  uint32_t index = 0;
  replyBytes_ = 0;
  releaseReply(); // the previous batch's reply has been sent
  if (!cacheCopies_.empty())
    settleCacheCopies(false); // chunks whose copies are done go on
  reply_ = &reply;
  batchSeq_ = batch.seq();
  auto report = [&](uint64_t seq, uint32_t i, int code,
                    const std::string &message) {
    error->seq = seq;
    error->index = i;
    error->code = code;
    error->message = message;
    return false;
  };
  // A command that failed, named by `what`; a sticky error poisons the
  // session. A deferred sync is reported where it was issued, which may be
  // an earlier batch (one sent without waiting for a reply).
  auto failed = [&](uint64_t seq, uint32_t i, const std::string &what,
                    const OpStatus &st) {
    std::string message = what + ": " + st.detail;
    if (isStickyError(st.code)) {
      sticky_ = st.code;
      stickyMessage_ = message;
    }
    return report(seq, i, st.code, message);
  };
  auto syncFailed = [&](const OpStatus &st) {
    return failed(syncErrorAt_.first, syncErrorAt_.second,
                  "cudaStreamSynchronize", st);
  };
  const auto *cmds = batch.commands();
  if (sticky_) {
    // The context is corrupt, as it would be in CUDA: nothing more runs, but
    // a Goodbye still ends the session.
    if (cmds)
      for (const wire::CommandEntry *c : *cmds)
        if (c && c->cmd_type() == wire::Command::Goodbye)
          goodbye_ = true;
    return report(batch.seq(), 0, sticky_,
                  "the session's context is unusable after an earlier "
                  "error: " +
                      stickyMessage_);
  }
  if (cmds)
    for (const wire::CommandEntry *c : *cmds) {
      if (!c)
        return failed(batch.seq(), index, "command",
                      fail(kErrInvalidValue, "null command entry"));
      OpStatus st = orderBehindPendingSyncs(*c);
      if (!st.ok())
        return syncFailed(st);
      CommandTimer timer(metrics_, c->cmd_type());
      std::string what;
      st = execute(*c, index, results, &what);
      ++commands_;
      if (!st.ok())
        return failed(batch.seq(), index, what.empty() ? "command" : what, st);
      noteCommandDone(*c, index);
      ++index;
      if (goodbye_)
        break;
    }
  // The client waits for this batch (a real sync, a read-back): everything
  // it synchronized must be done, and its errors known, when the reply goes.
  if (batch.reply_wanted() || goodbye_) {
    OpStatus st = waitForPendingSyncs();
    if (!st.ok())
      return syncFailed(st);
  }
  return true;
}

} // namespace rc::server
