#include "executor/executor.h"
#include "rc/server/errors.h"

namespace rc::server {

Executor::Executor(SessionSymbols symbols, Backend &backend,
                   std::unique_ptr<DeviceContext> first)
    : names_(std::move(symbols)), devices_(backend, std::move(first)),
      reply_(devices_), sync_(devices_), cache_(devices_, memory_, reply_),
      host_(devices_, memory_, reply_), libraries_(devices_, memory_, reply_),
      kernels_(names_, devices_, memory_, reply_),
      memoryCommands_(names_, devices_, memory_, reply_, host_, cache_),
      streams_(devices_, memory_, sync_, libraries_),
      vmm_(devices_, memory_, cache_), textures_(devices_, memory_, reply_),
      blas_(devices_, memory_, libraries_),
      graphs_(devices_, memory_, kernels_, blas_, libraries_,
              [this](const wire::CommandEntry &node, uint32_t index,
                     std::vector<ResultData> &results, std::string *what) {
                return execute(node, index, results, what);
              }) {}

Executor::~Executor() {
  cache_.settleCopies(true);   // before the contexts of their events go
  host_.finishSharedUploads(); // before the shared regions go
  libraries_.destroyObjects();
  reply_.release();
  host_.dropUploadRing();
  kernels_.releaseModules();
}

void Executor::setBounds(uint64_t maxReplyBytes, uint64_t maxSharedHostBytes,
                         const Budgets &budgets) {
  reply_.setBounds(maxReplyBytes, BudgetSet{budgets.reply});
  host_.setLimits(maxSharedHostBytes,
                  BudgetSet{budgets.tenantPinned, budgets.pinned});
  memory_.setBudgets(BudgetSet{budgets.tenantDevice});
}

void Executor::setMetrics(SessionMetrics *metrics) {
  metrics_ = metrics;
  reply_.setMetrics(metrics);
  sync_.setMetrics(metrics);
  cache_.setMetrics(metrics);
  host_.setMetrics(metrics);
}

OpStatus Executor::goodbye() {
  goodbye_ = true;
  // CUDA writes what kernels printed when their context synchronizes or is
  // destroyed, so a program that exits right after a launch still prints
  // it. Synchronize every context now, on this thread, whose capture sends
  // that text with the Goodbye's reply (docs/server-internals/sessions.md
  // "Device printf"); the session's teardown would print it where no client
  // sees it. Errors of work nobody synchronized are not reported, as with
  // cudart at exit.
  for (int d = 0; d < int(devices_.deviceCount()); ++d)
    if (devices_.existing(d) && devices_.bind(d).ok())
      devices_.existing(d)->deviceSynchronize();
  return OpStatus::success();
}

bool Executor::run(const wire::Batch &batch, std::vector<ResultData> &results,
                   ErrorData *error, flatbuffers::FlatBufferBuilder &reply) {
  uint32_t index = 0;
  reply_.startBatch(reply);   // the previous batch's reply has been sent
  cache_.settleCopies(false); // chunks whose copies are done go on
  sync_.startBatch(batch.seq());
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
    return failed(sync_.syncErrorAt().first, sync_.syncErrorAt().second,
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
                      OpStatus::fail(kErrInvalidValue, "null command entry"));
      OpStatus st = sync_.orderBehindPendingSyncs(*c);
      if (!st.ok())
        return syncFailed(st);
      CommandTimer timer(metrics_, c->cmd_type());
      std::string what;
      st = execute(*c, index, results, &what);
      ++commands_;
      if (!st.ok())
        return failed(batch.seq(), index, what.empty() ? "command" : what, st);
      sync_.noteCommandDone(*c, index);
      ++index;
      if (goodbye_)
        break;
    }
  // The client waits for this batch (a real sync, a read-back): everything
  // it synchronized must be done, and its errors known, when the reply goes.
  if (batch.reply_wanted() || goodbye_) {
    OpStatus st = sync_.waitForPendingSyncs();
    if (!st.ok())
      return syncFailed(st);
  }
  return true;
}

} // namespace rc::server
