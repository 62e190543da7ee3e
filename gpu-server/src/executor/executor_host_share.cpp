// HostShare / HostUnshare: pinned host memory shared with a client on the
// same machine (shared_host.h). The region is registered on the bound
// device's context; being portable, every device of the session reads back
// into it.
#include "executor/executor.h"
#include "rc/server/errors.h"

namespace rc::server {

OpStatus Executor::handle(const wire::HostUnshare &c, Answer &) {
  finishSharedUploads(); // uploads from its pages may still be queued
  return sharedHost_.release(c.region());
}

OpStatus Executor::handle(const wire::HostShare &c, Answer &a) {
  if (!hostSharing_)
    return OpStatus::fail(kErrNotSupported,
                          "memory is shared only with a client on the "
                          "server's machine (shm), and this session's "
                          "connection does not say it is one");
  uint64_t id = 0;
  std::string name;
  OpStatus st = sharedHost_.create(*ctx_, c.size(), &id, &name);
  if (!st.ok())
    return st;
  a.result.addr = id;
  a.result.payload = reply_->CreateVector(
      reinterpret_cast<const uint8_t *>(name.data()), name.size());
  a.give();
  return st;
}

} // namespace rc::server
