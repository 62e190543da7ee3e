// The client runtime core: one connection to rc-server, local state (device
// snapshot, allocation table) and the batch that async work is appended to,
// with roles that keep their own state beside it: Streams (streams.h:
// streams and events), Kernels (kernels.h: launches, function attributes,
// driver-API modules), Graphs (graphs.h: capture and graphs), Vmm (vmm.h:
// the driver's virtual memory calls), Arrays (arrays.h: CUDA arrays,
// texture and surface objects), Libraries (libraries.h: library calls
// and commands forwarded) and the TransferEngine (transfer_engine.h: how a
// copy's bytes travel). The exported CUDA API (api_*.cpp) is a thin layer
// over one global instance, reaching a role through its accessor
// (runtime().streams().streamCreate(...)); tests build their own with an
// injected connection.
//
// Locking: one lock, mu_, the connection's. Every public method of the
// Runtime and of its roles takes it; private helpers named *Locked or
// documented as such expect it held. A role's state is guarded by mu_ too,
// so no role has a lock of its own and there is no lock order to keep:
// the roles' calls append to the one batch and wait for its replies, and a
// call that does so with a role lock held would order that lock before
// mu_ while a reply handler touching the role's state would order it
// after. A role that later takes a lock of its own takes it inside mu_
// only (mu_ first), holds it across no append, round trip or call into
// another role, and says so here. Two other mutexes exist, both leaves:
// flusherMu_ (runtime_flusher.cpp; taken with mu_ held or alone, never
// the other way round) and WorkerPool's own (worker_pool.h).
#ifndef RC_RT_RUNTIME_H
#define RC_RT_RUNTIME_H

#include "core/arrays.h"
#include "core/batch.h"
#include "core/graphs.h"
#include "core/host_memory.h"
#include "core/kernels.h"
#include "core/libraries.h"
#include "core/link_emulation.h"
#include "core/managed_memory.h"
#include "core/streams.h"
#include "core/traffic_stats.h"
#include "core/transfer_engine.h"
#include "core/vmm.h"
#include "core/worker_pool.h"
#include "graphs/graph_state.h"
#include "manifests/kernel_index.h"
#include "rc/content_hash.h"
#include "rc/lib_call.h"
#include "rc/transport.h"
#include "rc_lib_call_abi.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace rc::rt {

// The highest stream priority of every current GPU (0 is the lowest):
// cudaDeviceGetStreamPriorityRange's answer; priorities are clamped to it.
constexpr int kGreatestStreamPriority = -5;

// The bytes `height` rows of `width` bytes, `pitch` apart, span:
// pitch * (height - 1) + width (height > 0); false when that overflows.
bool pitchedSpan(size_t pitch, size_t width, size_t height, size_t *span);

// The cudaError_t a code from the server stands for: a code CUDA 12.4
// defines, else cudaErrorUnknown (a cudaError_t holding any other number is
// undefined behaviour, and the server is another process). error_strings.cpp.
cudaError_t errorFromWire(int32_t code);

struct Options {
  size_t maxCommands = 512;    // a batch leaves when it holds this many
  size_t maxBytes = 1 << 20;   // ... or this many bytes
  int64_t batchAgeUs = 50;     // ... or its first command is this old
  size_t chunkBytes = 4 << 20; // H2D command / D2H reply size limit
  int connectTimeoutMs = 5000; // reaching the server (transport connect)
  // The server's answer to Hello: it creates the session's CUDA context and
  // loads its modules first, which the driver serializes when many clients
  // start at once (25 test processes on one H100: some waited over 5 s).
  int helloTimeoutMs = 60000;
  bool flusherThread = true; // background age flush
  // cudaStreamSynchronize / cudaDeviceSynchronize with only uploads since
  // the last wait: the sync travels as a server-side barrier, no round trip
  // (docs/runtime-api.md, "Sync elision"). RC_DEV_SYNC_ELISION=0 turns it off.
  bool elideSyncs = true;
  // RMA for large copies (docs/transport-internals/memory.md, "RMA copies");
  // RC_DEV_RMA=0 turns both directions off. Device-to-host copies of at least
  // rmaReadbackMin bytes ask the server to write them straight into the
  // destination (RC_DEV_RMA_READBACK_MIN); host-to-device copies of at least
  // rmaUploadMin bytes are written into the session's upload ring of
  // uploadRingBytes on the server (RC_DEV_RMA_UPLOAD_MIN). 0: that direction
  // off.
  static constexpr size_t kRmaMinBytes = 64 << 10;
  size_t rmaReadbackMin = kRmaMinBytes;
  size_t rmaUploadMin = kRmaMinBytes;
  uint64_t uploadRingBytes = 32 << 20;
  // cudaMallocHost blocks of at least this size are shared with a server on
  // the same machine (shm transport: docs/transport-internals/memory.md,
  // "Pinned memory shared with the server"), so read-backs into them copy
  // nothing on either side. RC_DEV_SHARED_HOST_MIN; RC_DEV_SHARED_HOST=0 (or
  // 0 here): off.
  size_t sharedHostMin = 64 << 10;
  // Uploads the server's content cache may hold are named by hash first
  // (docs/server-internals/content-cache.md, "Content cache"). RC_CACHE: `auto`
  // across a network only (over shm sending the bytes is a copy, cheaper than
  // hashing them), `1` always, `0` never (rc-cache cannot reach the cache
  // either).
  enum class CacheUploads { Never, AcrossNetwork, Always };
  CacheUploads cacheUploads = CacheUploads::AcrossNetwork;
  // Threads, the caller's included, that hash large uploads' chunks and
  // copy them into a shm upload ring (worker_pool.h; RC_DEV_BULK_THREADS).
  unsigned bulkThreads = 4;
  // RC_DEV_EMULATE_RTT_US, RC_DEV_EMULATE_GBPS (link_emulation.h); 0: off.
  int64_t emulateRttUs = 0;
  double emulateGbps = 0;
  // RC_AUTH_KEY_FILE: the key the client proves it holds at the handshake,
  // and that the server must prove it holds too (docs/security.md); empty:
  // no key, for servers that require none.
  std::string authKeyFile;
  std::string serverUrl;              // RC_SERVER
  std::vector<std::string> manifests; // RC_MANIFEST, `:`-separated
  std::string stats;                  // RC_STATS: where the exit summary goes
  // Why a variable's value was refused (rc::EnvReader's rule, also the
  // transport's RC_TRANSPORT_*): the runtime then fails every call that
  // needs the device, naming it. Empty: all valid.
  std::string settingsError;
  // Every RC_* variable of the client (docs/environment.md), read once,
  // when the first CUDA call creates the runtime.
  static Options fromEnv();
};

// Opens the connection; null + *error (a sentence) on failure.
using Connector = std::function<std::unique_ptr<transport::Connection>(
    int timeoutMs, std::string *error)>;
using ManifestLoader = std::function<void(KernelIndex &)>;

// The default connector: Options::serverUrl through rc::transport::connect,
// proving the key of Options::authKeyFile if the server asks before it
// opens the connection.
Connector urlConnector(std::string url, std::string keyFile);

class Runtime {
  // The roles work on the connection, the batch and each other's tables
  // under the runtime's lock (see "Locking" above).
  friend class Arrays;
  friend class Graphs;
  friend class Kernels;
  friend class Libraries;
  friend class Streams;
  friend class TransferEngine;
  friend class Vmm;

public:
  Runtime(Connector connect, ManifestLoader manifests, Options opts);
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  // ---- connection -------------------------------------------------------
  cudaError_t ensureConnected();
  void shutdown(); // flush, Goodbye, stop the flusher; later calls fail
  // shutdown() for the exit handler: gives up, sending nothing, when the
  // runtime lock stays taken for kExitLockWait. exit() may run inside a
  // signal handler that interrupted the thread holding the lock, or while
  // another thread is inside a call; the server sees the connection close
  // either way. True when it shut down; *stats then holds the totals.
  bool shutdownAtExit(TrafficStats *stats);
  static constexpr std::chrono::milliseconds kExitLockWait{250};

  // ---- how copies' bytes travel; the content cache (rc-cache) ----------
  TransferEngine &transfers() { return transfers_; }

  // ---- device (answered locally) ---------------------------------------
  cudaError_t deviceCount(int *count);
  cudaError_t deviceProperties(cudaDeviceProp *prop, int device);
  cudaError_t deviceAttribute(int *value, int attr, int device);
  cudaError_t setDevice(int device);
  cudaError_t getDevice(int *device);
  cudaError_t deviceSynchronize();
  cudaError_t deviceReset();
  // cudaProfilerStart / Stop, batched: a profiler attached to rc-server.
  cudaError_t setProfiling(bool start);
  // cudaDeviceSetLimit (set) / cudaDeviceGetLimit: one round trip each, to
  // the current device's context in the session; *value is the limit's
  // value afterwards.
  // cudaCtxResetPersistingL2Cache (runtime_device.cpp).
  cudaError_t resetPersistingL2();
  cudaError_t deviceLimit(int limit, size_t *value, bool set);

  // ---- memory -----------------------------------------------------------
  cudaError_t malloc(void **ptr, size_t size);
  // cudaMallocAsync / cudaFreeAsync (runtime_memory.cpp): an allocation
  // valid at once is valid at its point in the stream; not in a capture.
  cudaError_t mallocAsync(void **ptr, size_t size, cudaStream_t stream);
  cudaError_t freeAsync(void *ptr, cudaStream_t stream);
  cudaError_t free(void *ptr);
  cudaError_t mallocHost(void **ptr, size_t size);
  cudaError_t freeHost(void *ptr);
  cudaError_t memcpy(void *dst, const void *src, size_t count,
                     cudaMemcpyKind kind, cudaStream_t stream, bool async,
                     bool perThread);
  cudaError_t memset(void *dst, int value, size_t count, cudaStream_t stream,
                     bool perThread);
  cudaError_t memGetInfo(size_t *freeBytes, size_t *totalBytes);
  // cudaMallocManaged: device memory with a host mirror at the same address
  // (runtime_managed.cpp, core/managed_memory.h).
  cudaError_t mallocManaged(void **ptr, size_t size, unsigned flags);
  // cudaMemAdvise: accepted for managed memory, where it is only a hint.
  cudaError_t memAdvise(const void *p, size_t count, int advice, int device);
  // cudaMemPrefetchAsync, to any destination: what a GPU without
  // concurrent managed access answers (cudaErrorInvalidDevice), once the
  // range is checked.
  cudaError_t memPrefetch(const void *p, size_t count, cudaStream_t stream,
                          bool perThread);
  // cudaStreamAttachMemAsync: checked, then nothing to do (the mirrors are
  // synchronized at every synchronization, whatever the stream).
  cudaError_t streamAttachMemory(cudaStream_t stream, void *p, size_t length,
                                 unsigned flags, bool perThread);
  cudaError_t pointerAttributes(cudaPointerAttributes *attr, const void *p);
  // The device allocation (or symbol, or VMM mapping) `p` lies in: its
  // start and size (cuMemGetAddressRange); cudaErrorInvalidValue for none.
  cudaError_t allocationRange(const void *p, void **base, size_t *size);

  // ---- symbols ----------------------------------------------------------
  cudaError_t symbolAddress(void **devPtr, const void *symbol);
  cudaError_t symbolSize(size_t *size, const void *symbol);
  cudaError_t memcpyToSymbol(const void *symbol, const void *src, size_t count,
                             size_t offset, cudaMemcpyKind kind,
                             cudaStream_t stream, bool async, bool perThread);
  cudaError_t memcpyFromSymbol(void *dst, const void *symbol, size_t count,
                               size_t offset, cudaMemcpyKind kind,
                               cudaStream_t stream, bool async, bool perThread);

  // ---- streams and events (streams.h) ----------------------------------
  Streams &streams() { return streams_; }

  // ---- kernels: launches, attributes, driver-API modules (kernels.h) --
  Kernels &kernels() { return kernels_; }

  // ---- graphs (graphs.h, docs/graphs.md) ------------------------------
  Graphs &graphs() { return graphs_; }
  // Graph queries and edits that ask nothing of the server
  // (api/graph_edit_api.cpp, graphs/graph_edits.cpp) run `edit` on the
  // graph state under the runtime lock, with no method of their own here.
  template <class Edit> auto withGraphs(Edit &&edit) {
    std::lock_guard<std::mutex> lock(mu_);
    return edit(graphs_.stateLocked());
  }

  // ---- 2D and peer copies (runtime_copy2d.cpp) --------------------------
  cudaError_t memcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t height, cudaMemcpyKind kind,
                       cudaStream_t stream, bool async, bool perThread);
  // ---- pitched memory (runtime_pitched.cpp) ------------------------------
  cudaError_t mallocPitch(void **ptr, size_t *pitch, size_t width,
                          size_t height);
  cudaError_t memset2D(void *dst, size_t pitch, int value, size_t width,
                       size_t height, cudaStream_t stream);
  cudaError_t memset3D(cudaPitchedPtr p, int value, cudaExtent extent,
                       cudaStream_t stream);
  cudaError_t memcpy3D(const cudaMemcpy3DParms *p, cudaStream_t stream,
                       bool async);
  cudaError_t memcpy3DArray(const cudaMemcpy3DParms *p, cudaStream_t stream,
                            bool async);
  // ---- CUDA arrays, texture and surface objects (arrays.h) -------------
  Arrays &arrays() { return arrays_; }
  using ArrayBox = Arrays::ArrayBox;

  // cudaDeviceCanAccessPeer (from the handshake) and Enable/Disable.
  cudaError_t canAccessPeer(int *canAccess, int device, int peer);
  cudaError_t setPeerAccess(int peer, bool enable);
  cudaError_t memcpyPeer(void *dst, int dstDevice, const void *src,
                         int srcDevice, size_t count, cudaStream_t stream,
                         bool async, bool perThread);

  // ---- host memory and host functions (runtime_host.cpp) ---------------
  cudaError_t hostRegister(void *ptr, size_t size, unsigned flags);
  cudaError_t hostUnregister(void *ptr);
  // After the stream's prior work: a stream synchronization, then `fn` on
  // the calling thread (see docs/runtime-api.md).
  cudaError_t launchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *data,
                             bool perThread);
  cudaError_t streamAddCallback(cudaStream_t stream,
                                cudaStreamCallback_t callback, void *data,
                                unsigned flags, bool perThread);

  // ---- driver VMM for librc_cuda (vmm.h) --------------------------------
  Vmm &vmm() { return vmm_; }

  // ---- library forwarding (libraries.h, docs/libraries.md) -------------
  Libraries &libraries() { return libraries_; }
  using CommandBuilder = Libraries::CommandBuilder;

  // ---- observability (tests, RC_STATS) ---------------------------------
  uint64_t messagesSent();
  uint64_t roundTrips();
  TrafficStats trafficStats();

private:
  struct OpDesc {
    const char *call;  // API call that produced the command
    uint64_t kernelId; // launches: the kernel, for the error message
  };
  // Where a reply's Result for one command goes.
  struct Sink {
    uint32_t index = 0;
    void *payload = nullptr;
    size_t payloadSize = 0;
    bool rma = false;    // the server may write `payload` by RMA instead
    bool shared = false; // ... or it is memory the server shares
    // With rma (not shared): the exposure, released when the reply is in.
    transport::RemoteRegion exposure;
    // Set: any payload up to payloadSize bytes is right; its size goes here.
    size_t *payloadGot = nullptr;
    uint64_t *addr = nullptr;
    double *value = nullptr;
    int *code = nullptr;
    bool *filled = nullptr;
  };
  struct ServerError {
    uint64_t seq;
    uint32_t index;
    cudaError_t code;
  };
  enum class State { NotTried, Connected, Failed, Lost, ShutDown };

  // runtime_connect.cpp
  cudaError_t ensureConnectedLocked();
  // ensureConnectedLocked, then cudaErrorInvalidDevice unless `device` is
  // one of the session's devices.
  cudaError_t connectedDeviceLocked(int device);
  // On a refusal that may pass, *retryAfterMs says when to start over
  // (HelloReply.retry_after_ms; 0: it will not).
  cudaError_t handshakeLocked(std::string *error, uint32_t *retryAfterMs);
  // One Hello (with `ticket` after a redirect; empty: none) and the
  // authentication that follows: *out is the server's HelloReply (in
  // *msg), with ok set or a redirect it proved it may give.
  cudaError_t helloLocked(const std::vector<uint8_t> &ticket,
                          std::vector<uint8_t> *msg,
                          const wire::HelloReply **out, std::string *error,
                          uint32_t *retryAfterMs);
  void shutdownLocked();
  // Receives the next handshake message into *msg and opens it (*out);
  // false with *error when none came in time or it does not open.
  bool recvHandshakeLocked(std::vector<uint8_t> *msg, const wire::Message **out,
                           std::string *error);
  cudaError_t unavailableLocked() const;
  void loseConnectionLocked(const std::string &why);

  // runtime_flusher.cpp
  void flusherMain();
  void armFlusherLocked();
  void disarmFlusherLocked() { workPendingSinceNs_.store(0); }
  // Stops and joins the flusher. With a deadline it gives up (false) when
  // the flusher's lock stays taken until then (see shutdownAtExit).
  bool stopFlusher(std::chrono::steady_clock::time_point lockDeadline =
                       std::chrono::steady_clock::time_point::max());
  // Takes `lock`'s mutex, polling until `deadline` (max: blocking): a
  // try_lock by the thread that holds it fails at once (POSIX), where
  // lock() would wait forever.
  static bool lockBefore(std::unique_lock<std::mutex> &lock,
                         std::chrono::steady_clock::time_point deadline);

  // runtime_sync.cpp
  uint32_t appendLocked(wire::Command type, flatbuffers::Offset<void> cmd,
                        OpDesc desc);
  void afterAppendLocked();
  cudaError_t sendBatchLocked(bool replyWanted, std::vector<Sink> sinks,
                              uint64_t *seqOut);
  // Read-backs of many pieces (2D and array copies, runtime_copy2d.cpp):
  // their sinks leave in reply-wanted batches of at most opts_.chunkBytes
  // and opts_.maxCommands. Call room() before appending a piece's command,
  // since sending takes every command appended so far.
  class ReadbackBatches {
  public:
    explicit ReadbackBatches(Runtime &rt) : rt_(rt) {}
    cudaError_t room(size_t bytes);
    void add(const Sink &sink);
    cudaError_t send();

  private:
    Runtime &rt_;
    std::vector<Sink> sinks_;
    size_t pending_ = 0;
  };
  cudaError_t waitSeqLocked(uint64_t seq, bool all);
  cudaError_t recvOneLocked(int timeoutMs);
  void handleReplyLocked(const std::vector<uint8_t> &msg);
  // Round trip for the current batch (plus sinks of its last commands);
  // `sync` waits for every outstanding reply and returns pending errors.
  cudaError_t roundTripLocked(std::vector<Sink> sinks, bool sync);
  // RC_STATS: one wait for the server, caused by API call `call`.
  void countRoundTripLocked(const char *call);
  // A sync the host need not wait for: nothing but uploads (and barriers)
  // since the last sync round trip, no read-back or error outstanding.
  bool syncElidableLocked() const;
  // Appends the barrier `type` for the server and returns without waiting.
  cudaError_t elideSyncLocked(wire::Command type, flatbuffers::Offset<void> cmd,
                              const char *call);
  // A stream sync right after a read-back on that stream, with nothing
  // issued since: the read-back's reply already means the stream drained
  // (the server waits for it before copying), so wait for that reply
  // instead of sending a second batch and waiting for its reply too.
  bool syncFoldsIntoReadbackLocked(uint64_t stream) const;
  cudaError_t waitForReadbackLocked(const char *call);
  cudaError_t takePendingErrorLocked();
  std::string describeOpLocked(uint64_t seq, uint32_t index);
  std::string opNameLocked(uint64_t seq, uint32_t index);

  // runtime_sync.cpp. Before any command for the device: selects the thread's
  // device on the server, and sends managed memory the host wrote
  // (uploadManagedLocked).
  void ensureDeviceLocked();

  // runtime_memory.cpp
  cudaError_t mallocLocked(void **ptr, size_t size, const char *call);
  cudaError_t freeLocked(void *ptr); // ptr: the start of an allocation
  bool isDevicePointerLocked(const void *p) const;

  // runtime_managed.cpp. ptr a managed allocation: its mirror is gone and
  // *base is the device allocation to free; else false.
  bool freeManagedLocked(void *ptr, void **base);
  // Device memory of mirrorBytes + page whose page-aligned part (*addr) is
  // free in this process too, where the mirror of an allocation of `size`
  // bytes is now mapped; *base: the allocation.
  cudaError_t placeMirrorLocked(size_t size, size_t mirrorBytes, size_t page,
                                bool attachedToHost, uint64_t *addr,
                                uint64_t *base);
  // Before device work (ensureDeviceLocked): mirrors the host wrote go to
  // the device.
  void uploadManagedLocked();
  // After a synchronization that returned syncResult: when device work ran
  // since the last read-back, the fenced mirrors are read back (one round
  // trip) and opened to the host again.
  cudaError_t downloadManagedLocked(cudaError_t syncResult);
  // cudaErrorInvalidValue, with a message naming `call` and the range,
  // unless [p, p + n) lies inside one allocation, one symbol or mappings
  // made back to back: every device address the application holds came
  // from this runtime, so a range outside them cannot be valid, and a
  // huge one must fail before anything is sent or copied.
  cudaError_t checkDeviceRangeLocked(const char *call, const char *role,
                                     const void *p, size_t n) const;
  cudaError_t variableLocked(const void *symbol,
                             const manifest::Variable **var);
  cudaError_t symbolAddressLocked(const manifest::Variable *var,
                                  uint64_t *addr);
  // Device address of [offset, offset+count) of `symbol`, checked.
  cudaError_t symbolRangeLocked(const void *symbol, size_t count, size_t offset,
                                uint64_t *addr);
  // Resolves cudaMemcpyDefault into *kind (every device address came from
  // this runtime) and checks the device side(s) of the range; host to host
  // passes unchecked, a kind that is no direction fails.
  cudaError_t copyDirectionLocked(const void *dst, const void *src,
                                  size_t count, cudaMemcpyKind *kind,
                                  const char *call) const;
  cudaError_t memcpyLocked(void *dst, const void *src, size_t count,
                           cudaMemcpyKind kind, cudaStream_t stream, bool async,
                           bool perThread, const char *call);

  // runtime_sync.cpp: StreamQuery / EventQuery round trip.
  cudaError_t queryLocked(wire::Command type, flatbuffers::Offset<void> cmd,
                          const char *call);
  // One command whose answer the call returns: sent at once, its Result's
  // addr and value (either may be null) filled in; cudaErrorUnknown when the
  // reply lacks it.
  cudaError_t askLocked(wire::Command type, flatbuffers::Offset<void> cmd,
                        const char *call, uint64_t *addr, double *value);

  Connector connector_;
  ManifestLoader manifestLoader_;
  Options opts_;

public:
  const Options &options() const { return opts_; }

private:
  std::mutex mu_;
  State state_ = State::NotTried;
  std::unique_ptr<transport::Connection> conn_;
  KernelIndex index_;
  std::vector<cudaDeviceProp> props_;
  std::vector<std::vector<int32_t>> attrs_;
  std::vector<std::vector<bool>> canAccessPeer_; // [device][peer]
  std::set<std::pair<int, int>> peerEnabled_;    // (device, peer)
  std::string serverName_;

  BatchBuilder batch_;
  std::vector<OpDesc> batchOps_;
  uint64_t nextSeq_ = 1;
  std::map<uint64_t, std::vector<OpDesc>> sentOps_; // until answered
  std::map<uint64_t, std::vector<Sink>> sinks_;     // reply-wanted batches
  std::vector<ServerError> errors_;                 // not yet reported
  std::string lastErrorLine_;                       // printed last
  int sentDevice_ = 0;

  ManagedMirrors managed_;
  struct ManagedAllocation {
    uint64_t base = 0; // the device allocation the mirror lies in
    size_t size = 0;   // as cudaMallocManaged was asked
  };
  std::map<uint64_t, ManagedAllocation> managedAllocs_; // by mirror address
  bool movingManaged_ = false;          // uploading or reading back mirrors
  std::map<uint64_t, size_t> allocs_;   // device address -> size
  std::map<uint64_t, int> allocDevice_; // ... -> its device
  HostMemory hostMemory_; // cudaMallocHost blocks, cudaHostRegister ranges
  // A cudaMallocHost block mapped from memory the server shares, and its
  // region (null: it could not be, and the block is private).
  void *shareHostLocked(size_t size, uint64_t *sharedRegion);
  // (device, variable id) -> addr: each device has its own copy.
  std::map<std::pair<int, uint64_t>, uint64_t> symbolAddrs_;
  std::map<uint64_t, size_t> symbolRanges_; // addr -> size
  uint64_t nextHandle_ = 0x100;
  Streams streams_{*this};
  Kernels kernels_{*this};

  Graphs graphs_{*this};

  Vmm vmm_{*this};
  Arrays arrays_{*this};
  Libraries libraries_{*this};

  // After opts_: made from opts_.bulkThreads.
  TransferEngine transfers_;

  TrafficStats stats_;
  LinkEmulation link_{0, 0}; // set from opts_ at connect
  // Device work (anything but uploads and barriers) appended since the last
  // synchronizing round trip: a sync after it must wait (kernel timing).
  bool workSinceSync_ = false;
  // The last thing sent was a read-back on this wire stream (cleared by the
  // next appended command).
  bool readbackIsLast_ = false;
  uint64_t readbackStream_ = 0;

  // The flusher (runtime_flusher.cpp) sends a batch whose device work has
  // waited batchAgeUs while the application does host work. It never takes
  // mu_ blocking and is woken only when device work enters an empty batch:
  // a thread woken while a multi-threaded application computes on every
  // core delays that application by a scheduler slice.
  std::atomic<int64_t> workPendingSinceNs_{0}; // 0: no device work waits
  std::mutex flusherMu_;                       // guards the two below
  std::condition_variable flusherCv_;
  bool flusherIdle_ = false; // in its untimed wait: needs a notify
  bool stopFlusher_ = false;
  std::thread flusher_;
};

// The current thread's device (cudaSetDevice is per host thread).
int &threadDevice();

} // namespace rc::rt

#endif
