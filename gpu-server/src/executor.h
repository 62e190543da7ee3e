// Replays one session's batches: validates each command against the
// session's own state (allocations, streams, events, resolved symbols) and
// the registry, then performs it on the session's DeviceContext.
#ifndef RC_SERVER_EXECUTOR_H
#define RC_SERVER_EXECUTOR_H

#include "protocol_generated.h"
#include "rc/server/backend.h"

#include <map>
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
  OpStatus doMalloc(const wire::Malloc &c, ResultData &r);
  OpStatus doFree(const wire::Free &c);

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
  std::vector<uint8_t> argBuffer_; // 16-byte aligned copy of launch args
  std::string lastLaunch_;
  uint64_t replyBytes_ = 0; // payload bytes of the batch being run
  int sticky_ = 0;
  std::string stickyMessage_;
  bool goodbye_ = false;
  uint64_t commands_ = 0;
};

} // namespace rc::server

#endif
