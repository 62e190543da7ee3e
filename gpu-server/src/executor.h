// Replays one session's batches: validates each command against the
// session's own state (allocations, streams, events, resolved symbols) and
// the registry, then performs it on the session's DeviceContext.
#ifndef RC_SERVER_EXECUTOR_H
#define RC_SERVER_EXECUTOR_H

#include "protocol_generated.h"
#include "rc/server/backend.h"

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace rc::server {

struct ResultData {
  uint32_t index = 0;
  uint64_t addr = 0;
  double value = 0;
  int32_t code = 0;
  std::vector<uint8_t> payload;
};

struct ErrorData {
  uint64_t seq = 0;
  uint32_t index = 0;
  int32_t code = 0;
  std::string message;
};

class Executor {
public:
  Executor(const Registry &registry, const DeviceDescription &device,
           std::unique_ptr<DeviceContext> context,
           std::vector<bool> allowedManifests);

  // Runs the batch up to its first failing command. Returns false and fills
  // *error when a command failed; `results` gets what commands returned.
  bool run(const wire::Batch &batch, std::vector<ResultData> &results,
           ErrorData *error);
  // True once a Goodbye command was executed.
  bool saidGoodbye() const { return goodbye_; }
  // Non-zero once an error left the device context unusable.
  int stickyError() const { return sticky_; }
  const std::string &stickyMessage() const { return stickyMessage_; }
  uint64_t commandsRun() const { return commands_; }

private:
  OpStatus execute(const wire::CommandEntry &entry, uint32_t index,
                   std::vector<ResultData> &results, std::string *what);

  OpStatus doLaunch(const wire::Launch &c, std::string *what);
  // CUDA graphs (graph_executor.cpp, docs/graphs.md).
  struct GraphExec;
  struct CheckedNode;
  OpStatus doGraph(const wire::CommandEntry &entry, std::string *what);
  OpStatus graphInstantiate(const wire::GraphInstantiate &c);
  OpStatus graphUpdate(const wire::GraphExecUpdate &c);
  OpStatus graphLaunch(const wire::GraphLaunch &c);
  OpStatus graphDestroy(const wire::GraphExecDestroy &c);
  // Validates node `i` like the command it is, without performing it.
  OpStatus checkNode(const wire::CommandEntry *node, uint32_t i,
                     CheckedNode *out);
  OpStatus buildCudaGraph(GraphExec &g);
  // executor_ext.cpp: FuncSetAttribute and the driver VMM commands; false
  // when `entry` is none of them.
  bool executeExt(const wire::CommandEntry &entry, ResultData &r,
                  std::vector<ResultData> &results, std::string *what,
                  OpStatus *st);
  const KernelInfo *sessionKernel(uint64_t id) const;
  // [addr, addr+size) lies in contiguous VMM mappings with access enabled.
  bool inMapped(uint64_t addr, uint64_t size) const;
  // [addr, addr+size) is exactly a run of whole mappings; their bases.
  bool wholeMappings(uint64_t addr, uint64_t size,
                     std::vector<uint64_t> *bases) const;
  OpStatus doMalloc(const wire::Malloc &c, ResultData &r);
  OpStatus doFree(const wire::Free &c);
  // cuBLAS commands (cublas_executor.cpp).
  OpStatus doCublas(const wire::CommandEntry &entry, std::string *what);
  OpStatus cublasGemm(const wire::CublasGemm &c, std::string *what);
  OpStatus cublasTrsm(const wire::CublasTrsmBatched &c);
  OpStatus cublasHandle(uint64_t handle) const;
  OpStatus readPointerArray(const char *role, uint64_t array, int count,
                            uint64_t matrixBytes, NativeHandle s,
                            std::vector<uint64_t> *out);

  // [addr, addr+size) lies inside one allocation or resolved variable of
  // this session (size 0: addr itself may be one past the end).
  bool inSession(uint64_t addr, uint64_t size) const;
  OpStatus checkRange(const char *role, uint64_t addr, uint64_t size) const;
  OpStatus stream(uint64_t handle, NativeHandle *out) const;
  OpStatus event(uint64_t handle, NativeHandle *out) const;
  OpStatus variable(uint64_t id, const VariableInfo **out);
  OpStatus symbol(const VariableInfo &v, uint64_t *addr);
  // Adds "last launch: ..." to errors that surface at a synchronization.
  OpStatus syncResult(OpStatus st) const;

  const Registry &registry_;
  const DeviceDescription &device_;
  std::unique_ptr<DeviceContext> ctx_;
  std::vector<bool> allowed_; // manifests this client announced in Hello
  std::map<uint64_t, uint64_t> allocations_;  // base -> size
  std::map<uint64_t, uint64_t> symbolRanges_; // address -> size
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> symbols_;
  std::unordered_map<uint64_t, NativeHandle> streams_;
  std::unordered_map<uint64_t, NativeHandle> events_;
  // Driver VMM state (executor_ext.cpp): reserved VA ranges (base -> size),
  // physical allocations by client handle, mappings (base -> size, access).
  struct Physical {
    NativeHandle native = 0;
    uint64_t size = 0;
  };
  struct Mapping {
    uint64_t size = 0;
    bool access = false;
  };
  std::map<uint64_t, uint64_t> reservations_;
  std::unordered_map<uint64_t, Physical> physical_;
  std::map<uint64_t, Mapping> mappings_;
  // Executable graphs by client ID; while streamOverride_ is set, every
  // stream handle means that stream (a graph's nodes run on the graph's);
  // while launchSink_ is set, a validated launch goes there instead.
  std::map<uint64_t, std::shared_ptr<GraphExec>> graphExecs_;
  const NativeHandle *streamOverride_ = nullptr;
  std::function<OpStatus(const KernelInfo &, const LaunchConfig &,
                         const uint8_t *)>
      launchSink_;
  std::vector<uint8_t> argBuffer_; // 16-byte aligned copy of launch args
  std::string lastLaunch_;
  uint64_t replyBytes_ = 0; // payload bytes of the batch being run
  int sticky_ = 0;
  std::string stickyMessage_;
  bool goodbye_ = false;
  uint64_t commands_ = 0;
  // cuBLAS handles of this session -> their workspace (address, size).
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> cublasHandles_;
};

} // namespace rc::server

#endif
