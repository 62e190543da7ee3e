// Helpers for rc-server tests: a manifest built in-test, wire messages built
// with FlatBufferBuilder, reply decoding, and an in-memory Connection pair.
#ifndef RC_SERVER_TEST_UTIL_H
#define RC_SERVER_TEST_UTIL_H

#include "manifest_generated.h"
#include "protocol_generated.h"
#include "rc/content_hash.h"
#include "rc/server/server_core.h"
#include "rc/transport.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rc::server::test {

using Bytes = std::vector<uint8_t>;
namespace wire = rc::wire;

// The test manifest:
//   scale(float* p, int n)        Pointer at 0, Value at 8, args_size 16
//   consume(Pair s)               Aggregate of 16 bytes, pointer field at 8
//   gTable                        __constant__, 64 bytes
struct TestManifest {
  std::string path;
  uint64_t hash = 0;
  uint64_t scaleId = 0;
  uint64_t consumeId = 0;
  uint64_t tableId = 0;
};
// Writes a manifest file into a fresh temp directory. `salt` makes the
// module (and so the file hash) distinct, for several-manifest tests.
TestManifest writeTestManifest(const std::string &salt = "");

// ---- messages ---------------------------------------------------------
using Cmd = std::function<flatbuffers::Offset<wire::CommandEntry>(
    flatbuffers::FlatBufferBuilder &)>;

// uploadRingBytes: the upload ring the client asks for (0: none).
Bytes hello(const std::vector<uint64_t> &manifestHashes, uint32_t version = 1,
            uint64_t uploadRingBytes = 0);
// A Hello with the ticket of a redirect (--isolation process).
Bytes ticketHello(const std::vector<uint64_t> &manifestHashes,
                  const std::vector<uint8_t> &ticket);
// A Hello that names the key `keyId` the client will prove it holds, with
// the client's nonce (and a redirect's ticket, if given); and the client's
// answer to the server's challenge.
Bytes authHello(const std::vector<uint64_t> &manifestHashes,
                const std::string &keyId, const std::vector<uint8_t> &nonce,
                const std::vector<uint8_t> &ticket = {});
Bytes authResponse(const std::vector<uint8_t> &proof);
Bytes batch(uint64_t seq, const std::vector<Cmd> &commands,
            bool replyWanted = true);

Cmd cMalloc(uint64_t size);
Cmd cFree(uint64_t addr);
Cmd cH2D(uint64_t dst, const Bytes &data, uint64_t stream = 0);
// With `rma`, asks for the bytes to be written at addr/key (RMA read-back).
Cmd cD2H(uint64_t src, uint64_t size, uint64_t stream = 0, bool rma = false,
         uint64_t addr = 0, uint64_t key = 0);
Cmd cH2DRing(uint64_t dst, uint64_t ringOffset, uint64_t size, uint64_t ringEnd,
             uint64_t stream = 0);
// The content cache's commands: an upload named by its chunks' hashes,
// keeping [dst, dst+size) under `hash`, rc-cache's listing (and eviction).
Cmd cH2DCached(uint64_t dst, uint64_t size,
               const std::vector<ContentHash> &hashes, uint64_t stream = 0);
Cmd cCacheInsert(uint64_t dst, uint64_t size, const ContentHash &hash,
                 uint64_t stream = 0);
Cmd cCacheControl(bool evict, const std::vector<ContentHash> &hashes = {});
// Pinned host memory shared with the server (HostShare), and a read-back
// into bytes [offset, offset+size) of such a region.
Cmd cHostShare(uint64_t size);
Cmd cHostUnshare(uint64_t region);
Cmd cD2HShared(uint64_t src, uint64_t size, uint64_t region, uint64_t offset,
               uint64_t stream = 0);
// An upload from that region: [offset, offset + size) to dst.
Cmd cH2DShared(uint64_t dst, uint64_t size, uint64_t region, uint64_t offset,
               uint64_t stream = 0);
Cmd cD2D(uint64_t dst, uint64_t src, uint64_t size, uint64_t stream = 0);
Cmd cMemset(uint64_t dst, uint8_t value, uint64_t size, uint64_t stream = 0);
Cmd cLaunch(uint64_t kernel, const Bytes &args, uint64_t stream = 0,
            std::vector<uint32_t> grid = {1, 1, 1},
            std::vector<uint32_t> block = {32, 1, 1}, uint32_t shmem = 0);
Cmd cStreamCreate(uint64_t handle);
Cmd cStreamDestroy(uint64_t handle);
Cmd cStreamSync(uint64_t handle);
Cmd cStreamQuery(uint64_t handle);
Cmd cDeviceSync();
Cmd cEventCreate(uint64_t handle, uint32_t flags = 0);
Cmd cEventRecord(uint64_t event, uint64_t stream = 0);
Cmd cEventQuery(uint64_t event);
Cmd cEventSync(uint64_t event);
Cmd cEventElapsed(uint64_t start, uint64_t end);
Cmd cStreamWaitEvent(uint64_t stream, uint64_t event);
Cmd cSymbolWrite(uint64_t var, uint64_t offset, const Bytes &data);
Cmd cSymbolRead(uint64_t var, uint64_t offset, uint64_t size);
Cmd cSymbolAddress(uint64_t var);
Cmd cSetDevice(int device);
Cmd cPeerAccess(int peer, bool enable);
Cmd cDeviceLimit(int limit, uint64_t value, bool set);
Cmd cGoodbye();

// Argument buffers for the test kernels.
Bytes scaleArgs(uint64_t ptr, int32_t n);
Bytes consumeArgs(uint64_t tag, uint64_t ptr);

// ---- replies ----------------------------------------------------------
// nullptr unless `b` verifies and holds that body.
const wire::HelloReply *asHelloReply(const Bytes &b);
const wire::AuthChallenge *asAuthChallenge(const Bytes &b);
const wire::BatchReply *asBatchReply(const Bytes &b);
const wire::Result *resultAt(const wire::BatchReply *r, uint32_t index);

// ---- in-memory transport ----------------------------------------------
// A session's connection in tests that hand it messages directly: it
// carries nothing; subclasses add what a test needs (RMA, sameHost).
class NullConnection : public transport::Connection {
public:
  transport::Status send(const void *, size_t) override {
    return transport::Status::Error;
  }
  transport::Status recv(Bytes &, int) override {
    return transport::Status::Error;
  }
  bool peerAlive() override { return true; }
  std::string peerDescription() const override { return "test peer"; }
  std::string lastError() const override { return ""; }
};

struct Pipe {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Bytes> queue;
  bool closed = false;
};

class MemConnection : public transport::Connection {
public:
  MemConnection(std::shared_ptr<Pipe> in, std::shared_ptr<Pipe> out)
      : in_(std::move(in)), out_(std::move(out)) {}
  ~MemConnection() override { close(); }
  transport::Status send(const void *data, size_t size) override;
  transport::Status recv(Bytes &message, int timeoutMs) override;
  bool peerAlive() override;
  std::string peerDescription() const override { return "memory"; }
  std::string lastError() const override { return "closed"; }
  void close();

private:
  std::shared_ptr<Pipe> in_, out_;
};

// Two connected ends: first is the client's, second the server's.
std::pair<std::unique_ptr<MemConnection>, std::unique_ptr<MemConnection>>
memPair();

// Sends one message and waits up to timeoutMs for one reply; a transport
// failure on either side fails the test.
Bytes roundTrip(transport::Connection &conn, const Bytes &msg, int timeoutMs);

// Maps a shared-memory file the server named (a HostShare region, an upload
// ring over shm) as the client does: opens it, maps `size` bytes, unlinks
// the name. Null (and a test failure) when it cannot.
std::shared_ptr<uint8_t> mapServerFile(const std::string &name, size_t size);

// The client end of a memPair, for tests that talk to a ServerCore directly.
struct MemClient {
  explicit MemClient(std::unique_ptr<MemConnection> c = nullptr,
                     int replyTimeoutMs = 5000)
      : conn(std::move(c)), timeoutMs(replyTimeoutMs) {}
  std::unique_ptr<MemConnection> conn;
  int timeoutMs;
  Bytes roundTrip(const Bytes &msg) {
    return test::roundTrip(*conn, msg, timeoutMs);
  }
};

// Starts `core` on the host test device, serving one manifest; the result
// carries the start-up error for the test's message.
// Whether a failed CUDA start-up (ServerCore::start's error, rc-server's
// output) means this machine has no usable GPU, so GPU tests skip: no
// libcuda.so.1, cuInit failing, or no device.
bool noUsableGpu(const std::string &startError);

// `devices` host test devices (rc-server --test-devices N); clients must
// authenticate with a key of `authKeyFile` when one is given.
::testing::AssertionResult
startOnTestDevice(ServerCore &core, const std::string &manifestPath,
                  int devices = 1, const std::string &authKeyFile = "");

} // namespace rc::server::test

#endif
