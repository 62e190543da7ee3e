// Replays one session's batches: validates each command against the
// session's own state (allocations, streams, events, resolved symbols) and
// the registry, then performs it on the session's DeviceContext of the
// device the command belongs to (docs/server-internals/devices.md, "Several
// GPUs").
#ifndef RC_SERVER_EXECUTOR_H
#define RC_SERVER_EXECUTOR_H

#include "executor/shared_host.h"
#include "executor/upload_ring.h"
#include "executor/vmm_table.h"
#include "protocol_generated.h"
#include "rc/server/backend.h"
#include "rc/server/content_cache.h"
#include "rc/server/limits.h"
#include "rc/server/session_metrics.h"
#include "rc/server/session_symbols.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace rc::lib {
struct ParamRule;
} // namespace rc::lib

namespace rc::server {

namespace lib {
struct CatalogRow;
struct Slot;
} // namespace lib

struct ResultData {
  uint32_t index = 0;
  uint64_t addr = 0;
  double value = 0;
  int32_t code = 0;
  // Read-back bytes, already in the reply builder run() was given (0: none).
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> payload;
  bool writtenRemotely = false; // the bytes went by RMA instead
};

struct ErrorData {
  uint64_t seq = 0;
  uint32_t index = 0;
  int32_t code = 0;
  std::string message;
};

// Client stream handles with a fixed meaning (cudaStreamLegacy, which is
// stream 0, and cudaStreamPerThread).
constexpr uint64_t kLegacyStreamHandle = 1;
constexpr uint64_t kPerThreadStreamHandle = 2;

class Executor {
public:
  // `first`: the session's context on device 0, created at Hello.
  // `symbols`: the kernels and variables of the manifests the client
  // announced.
  Executor(SessionSymbols symbols, Backend &backend,
           std::unique_ptr<DeviceContext> first);
  ~Executor(); // gives back what it took from the shared budgets
  // What the session's memory is charged to (rc/server/limits.h): the
  // budgets all sessions share and its tenant's quotas (null: no bound).
  struct Budgets {
    ByteBudget *reply = nullptr, *pinned = nullptr;
    ByteBudget *tenantPinned = nullptr, *tenantDevice = nullptr;
  };
  // The session's bounds (limits.h): read-back bytes in one batch's reply,
  // pinned memory shared with the client; and its budgets. Before the
  // first batch.
  void setBounds(uint64_t maxReplyBytes, uint64_t maxSharedHostBytes,
                 const Budgets &budgets);
  // Every stream the session creates, or sets a priority on, runs at
  // `priority` whatever the client asks (its tenant's quota); none: as
  // asked.
  void forceStreamPriority(std::optional<int> priority) {
    streamPriority_ = priority;
  }

  // Runs the batch up to its first failing command. Returns false and fills
  // *error when a command failed; `results` gets what commands returned.
  // Read-backs copy their bytes straight into `reply`, the builder of the
  // batch's reply (one copy from the pinned staging, none after). The batch
  // came through wire::openMessage: every command (and graph node) whose
  // type is known carries its table, so the executor reads it unchecked.
  bool run(const wire::Batch &batch, std::vector<ResultData> &results,
           ErrorData *error, flatbuffers::FlatBufferBuilder &reply);
  // True once a Goodbye command was executed.
  bool saidGoodbye() const { return goodbye_; }
  // Non-zero once an error left the device context unusable.
  int stickyError() const { return sticky_; }
  const std::string &stickyMessage() const { return stickyMessage_; }
  uint64_t commandsRun() const { return commands_; }
  // Devices this session has a context on, ascending.
  std::vector<int> devicesUsed() const;
  // Where each command's count and replay time go (none: not timed).
  void setMetrics(SessionMetrics *metrics) { metrics_ = metrics; }
  // Writes read-back bytes straight into the client's memory (the
  // transport's RMA; docs/transport.md). Without one, or when it fails, a
  // read-back that asked for RMA travels in the reply like any other.
  // `pieceBytes` says, per read-back, how large the pieces handed to the
  // writer should be (0: the device context's own).
  using RemoteWriter = std::function<bool(const uint8_t *data, uint64_t size,
                                          uint64_t addr, uint64_t key)>;
  void setRemoteWriter(RemoteWriter writer,
                       std::function<uint64_t()> pieceBytes) {
    remoteWriter_ = std::move(writer);
    remotePieceBytes_ = std::move(pieceBytes);
  }
  // The session's upload ring on device 0's context (MemcpyH2DRing), in a
  // file the client maps if `shared`; null and *why when it cannot be
  // allocated (or the pinned budget of all sessions is spent).
  // dropUploadRing() frees it again (the transport could not expose it).
  const UploadRing *createUploadRing(uint64_t size, bool shared,
                                     std::string *why);
  void dropUploadRing();
  // HostShare is served only to a client on this machine (its connection
  // says so): it maps files of this machine's /dev/shm.
  void allowHostSharing(bool allow) { hostSharing_ = allow; }
  // How far the ring's copies have finished (BatchReply.ring_released).
  uint64_t uploadRingReleased() {
    return uploadRing_ ? uploadRing_->released() : 0;
  }
  // The server's content cache and the session's namespace in it (its
  // tenant; docs/server-internals/content-cache.md, "Content cache"); null:
  // none (the cache's commands fail naming it).
  void setContentCache(ContentCache *cache, std::string space) {
    cache_ = cache;
    cacheSpace_ = std::move(space);
  }
  // Hands finished cache copies on: reads release their chunks, insertions
  // go to the cache's verifier. With `wait`, waits for every one first.
  void settleCacheCopies(bool wait);

private:
  OpStatus execute(const wire::CommandEntry &entry, uint32_t index,
                   std::vector<ResultData> &results, std::string *what);
  // What a command's handler gives back besides its status.
  struct Answer {
    std::string *what = nullptr; // names the call in errors (the table's name)
    ResultData result;           // goes into the reply once given
    bool given = false;
    void give() { given = true; }
  };
  OpStatus dispatch(const wire::CommandEntry &entry, Answer &a);
  // One handler per command (executor_dispatch.cpp lists them): executor.cpp,
  // executor_ext.cpp, graph_executor.cpp, cublas_executor.cpp,
  // executor_host_share.cpp.
  OpStatus handle(const wire::Malloc &c, Answer &a);
  OpStatus handle(const wire::Free &c, Answer &a);
  OpStatus handle(const wire::MemcpyH2D &c, Answer &a);
  OpStatus handle(const wire::MemcpyD2H &c, Answer &a);
  OpStatus handle(const wire::MemcpyD2D &c, Answer &a);
  OpStatus handle(const wire::Memset &c, Answer &a);
  OpStatus handle(const wire::Launch &c, Answer &a);
  OpStatus handle(const wire::StreamCreate &c, Answer &a);
  OpStatus handle(const wire::StreamDestroy &c, Answer &a);
  OpStatus handle(const wire::StreamSynchronize &c, Answer &a);
  OpStatus handle(const wire::StreamQuery &c, Answer &a);
  OpStatus handle(const wire::DeviceSynchronize &c, Answer &a);
  OpStatus handle(const wire::EventCreate &c, Answer &a);
  OpStatus handle(const wire::EventDestroy &c, Answer &a);
  OpStatus handle(const wire::EventRecord &c, Answer &a);
  OpStatus handle(const wire::EventSynchronize &c, Answer &a);
  OpStatus handle(const wire::EventQuery &c, Answer &a);
  OpStatus handle(const wire::EventElapsedTime &c, Answer &a);
  OpStatus handle(const wire::StreamWaitEvent &c, Answer &a);
  OpStatus handle(const wire::SymbolWrite &c, Answer &a);
  OpStatus handle(const wire::SymbolRead &c, Answer &a);
  OpStatus handle(const wire::SymbolAddress &c, Answer &a);
  OpStatus handle(const wire::SetDevice &c, Answer &a);
  OpStatus handle(const wire::Goodbye &c, Answer &a);
  OpStatus handle(const wire::FuncSetAttribute &c, Answer &a);
  OpStatus handle(const wire::MemAddressReserve &c, Answer &a);
  OpStatus handle(const wire::MemAddressFree &c, Answer &a);
  OpStatus handle(const wire::MemCreate &c, Answer &a);
  OpStatus handle(const wire::MemRelease &c, Answer &a);
  OpStatus handle(const wire::MemMap &c, Answer &a);
  OpStatus handle(const wire::MemUnmap &c, Answer &a);
  OpStatus handle(const wire::MemSetAccess &c, Answer &a);
  OpStatus handle(const wire::GraphInstantiate &c, Answer &a);
  OpStatus handle(const wire::GraphExecUpdate &c, Answer &a);
  OpStatus handle(const wire::GraphLaunch &c, Answer &a);
  OpStatus handle(const wire::GraphExecDestroy &c, Answer &a);
  OpStatus handle(const wire::CublasCreate &c, Answer &a);
  OpStatus handle(const wire::CublasDestroy &c, Answer &a);
  OpStatus handle(const wire::CublasSetWorkspace &c, Answer &a);
  OpStatus handle(const wire::CublasGemm &c, Answer &a);
  OpStatus handle(const wire::CublasTrsmBatched &c, Answer &a);
  OpStatus handle(const wire::CublasLuBatched &c, Answer &a);
  // Driver-API modules (executor_modules.cpp).
  OpStatus handle(const wire::ModuleLoad &c, Answer &a);
  OpStatus handle(const wire::ModuleUnload &c, Answer &a);
  OpStatus handle(const wire::ModuleFunction &c, Answer &a);
  OpStatus handle(const wire::LaunchFunction &c, Answer &a);
  OpStatus handle(const wire::LibCall &c, Answer &a); // executor_libcalls
  OpStatus handle(const wire::PeerAccess &c, Answer &a);
  OpStatus handle(const wire::ProfilerControl &c, Answer &a);
  OpStatus handle(const wire::DeviceLimit &c, Answer &a);
  OpStatus handle(const wire::MemcpyH2DRing &c, Answer &a);
  OpStatus handle(const wire::MemcpyH2DCached &c, Answer &a);
  OpStatus handle(const wire::CacheInsert &c, Answer &a);
  OpStatus handle(const wire::CacheControl &c, Answer &a);
  OpStatus handle(const wire::FunctionAttributes &c, Answer &a);
  OpStatus handle(const wire::HostShare &c, Answer &a);
  OpStatus handle(const wire::HostUnshare &c, Answer &a);
  // Arrays and texture/surface objects (executor_textures.cpp).
  OpStatus handle(const wire::ArrayCreate &c, Answer &a);
  OpStatus handle(const wire::ArrayDestroy &c, Answer &a);
  OpStatus handle(const wire::ArrayCopy &c, Answer &a);
  OpStatus handle(const wire::TextureCreate &c, Answer &a);
  OpStatus handle(const wire::TextureDestroy &c, Answer &a);
  OpStatus handle(const wire::StreamAttribute &c, Answer &a); // executor_ext
  OpStatus handle(const wire::ResetPersistingL2 &c, Answer &a);
  // TextureLinearWidth and ClusterOccupancy: questions for the driver
  // (executor_queries.cpp).
  OpStatus driverQuery(const wire::CommandEntry &entry, Answer &a);

  // Deferred stream syncs (docs/server.md, executor_sync.cpp): a
  // cudaStreamSynchronize does not wait on the host. It becomes a pending
  // sync, an obligation on every later command: work on its own stream keeps
  // it by stream order; work on another stream of the same device waits on
  // the GPU for an event recorded on the synced stream (a fence), unless the
  // executor already knows that stream to be ordered behind it; a command
  // that may observe the host-side order, or a batch the client waits for,
  // waits on the host. A decode token of llama.cpp (uploads on the
  // per-thread stream, each between syncs of both streams, a graph launch
  // and the logits read-back on the compute stream) thus reaches the GPU
  // with one fence and no host wait.
  struct StreamKey { // a client stream on a device (handles 0 and 2 are
    uint64_t handle; // per device)
    int device;
    bool operator<(const StreamKey &o) const {
      return handle != o.handle ? handle < o.handle : device < o.device;
    }
    bool operator==(const StreamKey &o) const {
      return handle == o.handle && device == o.device;
    }
  };
  // What the executor knows of one stream, in points of seq_, which counts
  // every command that enqueues something.
  struct StreamClock {
    uint64_t lastWork = 0;     // its latest stream-ordered work
    uint64_t lastEnqueued = 0; // its latest work or fence wait
    uint64_t done = 0;         // what it got up to here has finished
    // What other streams got up to there runs before this stream's next work.
    std::map<StreamKey, uint64_t> after;
  };
  struct PendingSync {
    StreamKey stream;
    NativeHandle native = 0;
    uint64_t upTo = 0; // the sync waits for what its stream got up to here
    uint64_t seq = 0;  // the sync command's batch and index, for errors
    uint32_t index = 0;
  };
  struct FenceEvent { // one per device, created on first use
    NativeHandle event = 0;
    bool recorded = false;
    StreamKey stream{0, 0}; // where it was last recorded,
    uint64_t marks = 0;     // at that stream's lastEnqueued
  };
  // What each command orders on and enqueues: rc/command_table.h.
  // run() calls these around each command: the first keeps the command
  // behind every pending sync, the second notes its work or its sync.
  OpStatus orderBehindPendingSyncs(const wire::CommandEntry &c);
  void noteCommandDone(const wire::CommandEntry &c, uint32_t index);
  // Makes `key`'s next work wait on the GPU for p's stream; a host wait
  // where that cannot be expressed.
  OpStatus fence(const StreamKey &key, NativeHandle native,
                 const PendingSync &p);
  bool orderedBehind(const StreamKey &key, const PendingSync &p);
  // Host waits: for one pending sync, for all (its error is reported at
  // syncErrorAt_, the sync command that was deferred).
  OpStatus waitFor(const PendingSync &p);
  OpStatus waitForPendingSyncs();
  void markDone(const StreamKey &key); // its enqueued work has finished
  void forgetStream(uint64_t handle, int device); // destroyed
  uint64_t seq_ = 0;
  uint64_t untrackedAt_ = 0; // the latest command that may enqueue unseen work
  std::map<StreamKey, StreamClock> clocks_;
  std::vector<PendingSync> pending_;
  std::vector<FenceEvent> fenceEvents_; // by device
  // The stream of the command being run (orderBehindPendingSyncs found it).
  bool commandHasStream_ = false;
  StreamKey commandStream_{0, 0};
  NativeHandle commandNative_ = 0;
  std::pair<uint64_t, uint32_t> syncErrorAt_{0, 0};
  uint64_t batchSeq_ = 0; // of the batch being run

  // Counts `size` more read-back bytes into this batch's reply: within the
  // session's bound and the budget all sessions share, or an error naming
  // the one that would be passed.
  OpStatus reserveReply(uint64_t size);
  void releaseReply(); // the reply went out: its bytes are free again
  // Copies `size` device bytes into a new vector of the reply builder.
  OpStatus readBack(uint64_t src, uint64_t size, NativeHandle stream,
                    ResultData &r);
  // A MemcpyD2H that asked for RMA: written into the client's memory if the
  // transport can, else (also after a failed write) readBack().
  OpStatus readBackRemote(const wire::MemcpyD2H &c, NativeHandle stream,
                          ResultData &r);
  // A MemcpyD2H into a region shared with the client: one DMA, no payload.
  OpStatus readBackShared(const wire::MemcpyD2H &c, NativeHandle stream,
                          ResultData &r);
  flatbuffers::FlatBufferBuilder *reply_ = nullptr; // during run()

  OpStatus doLaunch(const wire::Launch &c, std::string *what);
  OpStatus stageArgs(const flatbuffers::Vector<uint8_t> *args,
                     uint32_t argsSize);
  OpStatus launchConfig(const flatbuffers::Vector<uint32_t> *grid,
                        const flatbuffers::Vector<uint32_t> *block,
                        uint32_t sharedMem, uint64_t stream, LaunchConfig *out);
  // CUDA graphs (graph_executor.cpp, docs/graphs.md).
  struct GraphExec;
  struct CheckedNode;
  // Validates node `i` like the command it is, without performing it.
  OpStatus checkNode(const wire::CommandEntry *node, uint32_t i,
                     CheckedNode *out);
  OpStatus buildCudaGraph(GraphExec &g);
  // The session's kernel `id`, or null with *why.
  const KernelInfo *sessionKernel(uint64_t id, std::string *why) const;
  OpStatus doMalloc(const wire::Malloc &c, ResultData &r);
  OpStatus doFree(const wire::Free &c);
  // cuBLAS commands (cublas_executor.cpp).
  OpStatus cublasGemm(const wire::CublasGemm &c, std::string *what);
  // Checks the handle, resolves `stream` and binds the handle's device.
  OpStatus cublasHandle(uint64_t handle, uint64_t stream, NativeHandle *s);
  OpStatus readPointerArray(const char *role, uint64_t array, int count,
                            uint64_t matrixBytes, NativeHandle s,
                            std::vector<uint64_t> *out);

  // [addr, addr+size) lies inside one allocation or resolved variable of
  // this session (size 0: addr itself may be one past the end); *device:
  // the device whose memory it is.
  bool inSession(uint64_t addr, uint64_t size, int *device = nullptr) const;
  OpStatus checkRange(const char *role, uint64_t addr, uint64_t size,
                      int *device = nullptr) const;

  // Several devices. Every command runs on ctx_: the current device's
  // context (SetDevice), or the device of the stream, event, handle or
  // memory it names; bind() selects it. Contexts are created on first use.
  OpStatus bind(int device);
  OpStatus contextOf(int device, DeviceContext **out);
  OpStatus checkDevice(int device) const;
  const DeviceDescription &boundDevice() const {
    return backend_.device(bound_);
  }
  // Resolves a client stream and binds its device.
  OpStatus bindStream(uint64_t handle, NativeHandle *out);
  // Resolves a client event and binds its device.
  OpStatus bindEvent(uint64_t handle, NativeHandle *out);
  // Resolves a client event without binding (cross-device waits).
  OpStatus event(uint64_t handle, NativeHandle *out) const;
  // A device-to-device copy, between devices when src and dst differ.
  OpStatus copyD2D(uint64_t dst, uint64_t src, uint64_t size, NativeHandle s);
  OpStatus doPeerAccess(const wire::PeerAccess &c);
  OpStatus variable(uint64_t id, const VariableInfo **out);
  OpStatus symbol(const VariableInfo &v, uint64_t *addr);
  // Adds "last launch: ..." to errors that surface at a synchronization.
  OpStatus syncResult(OpStatus st) const;

  const SessionSymbols names_; // what the client's IDs mean
  Backend &backend_;
  std::vector<std::unique_ptr<DeviceContext>> contexts_; // by device
  // After contexts_: destroyed first, while its copies' contexts exist.
  std::unique_ptr<UploadRing> uploadRing_;
  // After contexts_ too: its regions are unregistered while they exist.
  SharedHost sharedHost_{ServerLimits().sharedHostBytes};
  // Uploads straight from shared host memory (MemcpyH2D.host_region) read
  // its pages asynchronously: the devices that may still be reading, all
  // synchronized before a region is unmapped.
  std::set<int> sharedUploadDevices_;
  OpStatus uploadShared(const wire::MemcpyH2D &c, uint64_t n,
                        NativeHandle stream);
  void finishSharedUploads();
  bool hostSharing_ = false;               // the client runs on this machine
  DeviceContext *ctx_ = nullptr;           // the bound device's context
  int bound_ = 0;                          // its device
  int current_ = 0;                        // SetDevice
  DeviceContext *threadCurrent_ = nullptr; // current on this thread
  struct Range {
    uint64_t size = 0;
    int device = 0;
    std::shared_ptr<const HeldBytes> charge; // of deviceBudgets_
  };
  std::map<uint64_t, Range> allocations_;  // base -> size, device
  std::map<uint64_t, Range> symbolRanges_; // address -> size, device
  // (device, variable id) -> (address, size): each context has its own copy.
  std::map<std::pair<int, uint64_t>, std::pair<uint64_t, uint64_t>> symbols_;
  struct OnDevice {
    NativeHandle native = 0;
    int device = 0;
  };
  // CUDA arrays by client ID, and texture/surface objects by the driver's
  // handle; both live in (and go with) their device's context.
  struct ArrayRecord {
    NativeHandle native = 0;
    int device = 0;
    uint64_t rowBytes = 0, rows = 0, slices = 0;
    uint32_t flags = 0;
    std::shared_ptr<const HeldBytes> charge; // of deviceBudgets_
  };
  std::map<uint64_t, ArrayRecord> arrays_;
  struct TextureObject {
    int device = 0;
    bool surface = false;
  };
  std::map<uint64_t, TextureObject> textureObjects_;
  // Driver-API modules by client ID (the backend's shared copy, released
  // with the session), and their kernels by the client's function ID.
  std::map<uint64_t, NativeHandle> modules_;
  struct ModuleKernel {
    uint64_t module = 0;
    KernelInfo kernel;
  };
  std::map<uint64_t, ModuleKernel> moduleKernels_;
  // Objects the session's vendor library calls made (generators,
  // descriptors), by client ID; destroyed newest first when it ends.
  struct LibObject {
    void *native = nullptr;
    const void *type = nullptr; // lib_invoke.h's tag of its C type
    std::string destroys;       // the catalog row that destroys it
    int device = 0;
    uint64_t order = 0;
  };
  std::map<uint64_t, LibObject> libObjects_;
  uint64_t libObjectsMade_ = 0;
  // Host work buffers (`w`) by the client's address, and the largest size
  // a call reported for them (`z`).
  std::map<uint64_t, std::vector<uint8_t>> hostWork_;
  uint64_t hostWorkBytes_ = 0;
  uint64_t hostWorkHeld_ = 0; // their bytes, bounded per session
  void destroyLibObjects();
  // The library's cublasHandle_t behind a session's cuBLAS handle, for a
  // row that names one.
  OpStatus cublasRowHandle(uint64_t handle, void **out);
  // A row's function: cuBLAS's from the session's libcublas, the others'
  // from the catalog. Null and *why when missing.
  void *librarySymbolOf(const lib::CatalogRow &row, std::string *why);
  // Calls a checked row: under the cuBLAS device pointer mode if asked; as
  // a graph's node (streamOverride_), with its object on the graph's
  // stream for the call.
  OpStatus invokeLibraryCall(const lib::CatalogRow &row,
                             const std::vector<rc::lib::ParamRule> &rules,
                             std::vector<lib::Slot> &slots, void *symbol,
                             bool scalarsOnDevice, int *status);
  // The stream the program last gave each library object (its *SetStream
  // row), by the library's object: where a node returns it.
  std::map<void *, void *> libraryStreams_;
  void forgetLibraryStream(void *stream);
  OpStatus sessionArray(uint64_t id, ArrayRecord **out);
  std::unordered_map<uint64_t, OnDevice> streams_;
  std::unordered_map<uint64_t, OnDevice> events_;
  // Driver VMM objects (vmm_table.h; the handlers in executor_ext.cpp).
  VmmTable vmm_;
  // Executable graphs by client ID; while streamOverride_ is set, every
  // stream handle means that stream (a graph's nodes run on the graph's,
  // on the bound device); while launchSink_ is set, a validated launch goes
  // there instead.
  std::map<uint64_t, std::shared_ptr<GraphExec>> graphExecs_;
  const OnDevice *streamOverride_ = nullptr;
  std::function<OpStatus(const KernelInfo &, const LaunchConfig &,
                         const uint8_t *)>
      launchSink_;
  bool gemmCheckOnly_ = false;     // while set, a valid GEMM is not performed
  bool libCallCheckOnly_ = false;  // ... nor a valid library call
  std::vector<uint8_t> argBuffer_; // 16-byte aligned copy of launch args
  std::string lastLaunch_;
  uint64_t replyBytes_ = 0; // payload bytes of the batch being run
  // A flatbuffer must stay under 2 GiB, and FlatBufferBuilder aborts
  // rather than fail beyond that.
  static constexpr uint64_t kMaxReplyBytes = uint64_t(1) << 30;
  uint64_t maxReplyBytes_ = ServerLimits().replyBytes;
  BudgetSet replyBudgets_;
  uint64_t replyHeld_ = 0; // taken from replyBudgets_ for the last reply
  BudgetSet pinnedBudgets_;
  uint64_t ringHeld_ = 0;   // taken from pinnedBudgets_ for the upload ring
  BudgetSet deviceBudgets_; // device memory: cudaMalloc, VMM, arrays
  std::optional<int> streamPriority_;
  int sticky_ = 0;
  std::string stickyMessage_;
  bool goodbye_ = false;
  uint64_t commands_ = 0;
  SessionMetrics *metrics_ = nullptr;
  // The content cache (executor_cache.cpp): copies from or into its chunks
  // still on a stream, each with the event after it and the context that
  // recorded it; a chunk stays referenced until its copy is done.
  ContentCache *cache_ = nullptr;
  std::string cacheSpace_;
  struct CacheCopy {
    std::vector<ContentCache::Ref> reads;
    std::shared_ptr<ContentCache::Chunk> insert;
    DeviceContext *ctx = nullptr;
    NativeHandle event = 0;
  };
  std::deque<CacheCopy> cacheCopies_;
  OpStatus trackCacheCopy(CacheCopy copy, NativeHandle stream);
  // Per context, the stream that copies uploaded chunks into the pool.
  std::map<DeviceContext *, NativeHandle> cacheStreams_;
  OpStatus cacheStream(NativeHandle *out);
  OpStatus afterOnCacheStream(NativeHandle stream, NativeHandle *side);
  RemoteWriter remoteWriter_;
  std::function<uint64_t()> remotePieceBytes_;
  // cuBLAS handles of this session -> their device and workspace.
  struct BlasHandle {
    int device = 0;
    uint64_t workspace = 0, workspaceSize = 0;
  };
  std::map<uint64_t, BlasHandle> cublasHandles_;
};

} // namespace rc::server

#endif
