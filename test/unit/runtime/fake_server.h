// An in-process stand-in for rc-server behind the transport::Connection
// interface: it decodes every batch the runtime sends, keeps device memory in
// host vectors, and answers like the real server (a reply when reply_wanted,
// an error-only reply when a command failed). Tests inspect what arrived.
#ifndef RC_TEST_FAKE_SERVER_H
#define RC_TEST_FAKE_SERVER_H

#include "core/runtime.h"
#include "rc/manifest_file.h"
#include "rc/transport.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace rc::test {

struct RecordedLaunch {
  uint64_t id;
  uint32_t grid[3], block[3];
  uint32_t shmem;
  uint64_t stream;
  std::vector<uint8_t> args;
};

struct FakeState {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::vector<uint8_t>> toClient;
  int hellos = 0;
  std::vector<size_t> batchSizes; // commands per batch received
  std::vector<bool> batchReplyWanted;
  std::vector<rc::wire::Command> commands; // every command, in order
  std::vector<RecordedLaunch> launches;
  std::map<uint64_t, std::vector<uint8_t>> memory; // base -> bytes
  uint64_t nextAddr = 0x7f0000000000ull;
  uint64_t failKernel = 0;              // a launch of this id fails ...
  int32_t failCode = 700;               // ... with this code
  std::map<uint64_t, uint64_t> symbols; // variable id -> address
  bool refuse = false;                  // HelloReply ok=false
  // The first this many Hellos are refused with retry_after_ms = retryMs
  // (a refusal that may pass: the runtime starts over).
  int refusalsWorthRetrying = 0;
  uint32_t retryMs = 0;
  int helloDelayMs = 0; // HelloReply this much later
  // Replies that name their body type but carry no body (a hostile or
  // broken server).
  bool bodilessHelloReply = false;
  bool bodilessBatchReply = false;

  size_t batchCount() {
    std::lock_guard<std::mutex> l(mu);
    return batchSizes.size();
  }
};

class FakeConnection : public rc::transport::Connection {
public:
  explicit FakeConnection(std::shared_ptr<FakeState> s) : s_(std::move(s)) {}
  rc::transport::Status send(const void *data, size_t size) override;
  rc::transport::Status recv(std::vector<uint8_t> &message,
                             int timeoutMs) override;
  bool peerAlive() override { return true; }
  std::string peerDescription() const override { return "fake://server"; }
  std::string lastError() const override { return ""; }

private:
  void handleBatch(const rc::wire::Batch &b);
  uint8_t *deviceBytes(uint64_t addr, uint64_t size);
  std::shared_ptr<FakeState> s_;
};

// A manifest for tests: kernels with explicit layouts, one module.
struct TestParam {
  uint32_t offset, size, align;
};
struct TestKernel {
  uint64_t id;
  std::string name, demangled;
  std::vector<TestParam> params;
  uint32_t argsSize;
  std::string file;
  uint32_t line;
};
struct TestVariable {
  uint64_t id;
  std::string name;
  uint64_t size;
};
std::unique_ptr<rc::LoadedManifest>
makeManifest(uint64_t fatbinHash, const std::vector<TestKernel> &kernels,
             const std::vector<TestVariable> &vars = {});

// A runtime wired to a fresh fake server; `manifest` may be null.
std::unique_ptr<rc::rt::Runtime>
makeRuntime(std::shared_ptr<FakeState> state, rc::rt::Options opts,
            std::shared_ptr<rc::LoadedManifest> manifest);

// Options for deterministic tests: no background flush, no age flush.
rc::rt::Options quietOptions();

} // namespace rc::test

#endif
