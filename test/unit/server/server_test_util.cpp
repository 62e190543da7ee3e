#include "server_test_util.h"

#include <csignal>
#include <execinfo.h>

#include "rc/kernel_id.h"
#include "rc/manifest_file.h"
#include "rc/wire_message.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

namespace {
// A crash in a test (often in the server code under test) prints its stack:
// the GPU machine has no debugger. Frames are file+offset; addr2line -e the
// same binary names them.
void printStackAndDie(int sig) {
  void *frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
const bool kStackOnCrash = [] {
  std::signal(SIGSEGV, printStackAndDie);
  std::signal(SIGBUS, printStackAndDie);
  return true;
}();
} // namespace

namespace rc::server::test {

namespace fb = flatbuffers;
namespace mf = rc::manifest;

TestManifest writeTestManifest(const std::string &salt) {
  TestManifest t;
  const char *scaleName = "_Z5scalePfi";
  const char *consumeName = "_Z7consume4Pair";
  const char *tableName = "gTable";
  t.scaleId = symbolId(scaleName, false, "");
  t.consumeId = symbolId(consumeName, false, "");
  t.tableId = symbolId(tableName, false, "");

  fb::FlatBufferBuilder fbb;
  // Not a real fatbin: the host test device never loads it.
  std::vector<uint8_t> fatbin(64, 0x5A);
  for (size_t i = 0; i < salt.size() && i < fatbin.size(); ++i)
    fatbin[i] = uint8_t(salt[i]);
  std::string source = "test" + salt + ".cu";
  std::vector<fb::Offset<mf::Module>> modules = {mf::CreateModuleDirect(
      fbb, source.c_str(), fnv1a64(fatbin.data(), fatbin.size()), &fatbin)};

  std::vector<fb::Offset<mf::Param>> scaleParams = {
      mf::CreateParamDirect(fbb, "p", "float *", 0, 8, 8,
                            mf::ParamKind::Pointer),
      mf::CreateParamDirect(fbb, "n", "int", 8, 4, 4, mf::ParamKind::Value)};
  std::vector<uint32_t> pairPointers = {8};
  std::vector<fb::Offset<mf::Param>> consumeParams = {mf::CreateParamDirect(
      fbb, "s", "Pair", 0, 16, 8, mf::ParamKind::Aggregate, &pairPointers)};
  std::vector<fb::Offset<mf::LaunchSite>> sites = {
      mf::CreateLaunchSiteDirect(fbb, "test.cu", 42, 3, "chevron")};
  std::vector<fb::Offset<mf::Kernel>> kernels = {
      mf::CreateKernelDirect(fbb, t.scaleId, scaleName, "scale(float*, int)",
                             false, 0, &scaleParams, 16, &sites),
      mf::CreateKernelDirect(fbb, t.consumeId, consumeName, "consume(Pair)",
                             false, 0, &consumeParams, 16, nullptr)};
  std::vector<fb::Offset<mf::Variable>> vars = {
      mf::CreateVariableDirect(fbb, t.tableId, tableName, "gTable", false, 64,
                               mf::VarKind::Constant, 0)};
  fbb.Finish(mf::CreateManifestDirect(fbb, 1, &modules, &kernels, &vars),
             "RCMF");

  char dir[] = "/tmp/rc-server-test-XXXXXX";
  if (!mkdtemp(dir))
    throw std::runtime_error("mkdtemp failed");
  t.path = std::string(dir) + "/app.rcm";
  std::string error;
  if (!writeFile(t.path, fbb.GetBufferPointer(), fbb.GetSize(), &error))
    throw std::runtime_error(error);
  t.hash = fnv1a64(fbb.GetBufferPointer(), fbb.GetSize());
  return t;
}

namespace {
Bytes finish(fb::FlatBufferBuilder &fbb, wire::Body type, fb::Offset<void> b) {
  fbb.Finish(wire::CreateMessage(fbb, type, b), "RCW1");
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

template <class T>
Cmd entry(std::function<fb::Offset<T>(fb::FlatBufferBuilder &)> f) {
  return [f](fb::FlatBufferBuilder &fbb) {
    auto body = f(fbb);
    return wire::CreateCommandEntry(fbb, wire::CommandTraits<T>::enum_value,
                                    body.Union());
  };
}
} // namespace

Bytes hello(const std::vector<uint64_t> &hashes, uint32_t version,
            uint64_t uploadRingBytes) {
  fb::FlatBufferBuilder fbb;
  auto h = wire::CreateHelloDirect(fbb, version, &hashes, "server-test",
                                   uint32_t(getpid()), uploadRingBytes);
  return finish(fbb, wire::Body::Hello, h.Union());
}

Bytes ticketHello(const std::vector<uint64_t> &hashes,
                  const std::vector<uint8_t> &ticket) {
  fb::FlatBufferBuilder fbb;
  auto h = wire::CreateHelloDirect(
      fbb, wire::kProtocolVersion, &hashes, "server-test", uint32_t(getpid()),
      0, /*build_ids=*/nullptr, /*auth_key_id=*/nullptr,
      /*auth_client_nonce=*/nullptr, &ticket);
  return finish(fbb, wire::Body::Hello, h.Union());
}

Bytes authHello(const std::vector<uint64_t> &hashes, const std::string &keyId,
                const std::vector<uint8_t> &nonce,
                const std::vector<uint8_t> &ticket) {
  fb::FlatBufferBuilder fbb;
  auto h = wire::CreateHelloDirect(fbb, wire::kProtocolVersion, &hashes,
                                   "server-test", uint32_t(getpid()), 0,
                                   /*build_ids=*/nullptr, keyId.c_str(), &nonce,
                                   ticket.empty() ? nullptr : &ticket);
  return finish(fbb, wire::Body::Hello, h.Union());
}

Bytes authResponse(const std::vector<uint8_t> &proof) {
  fb::FlatBufferBuilder fbb;
  auto r = wire::CreateAuthResponseDirect(fbb, &proof);
  return finish(fbb, wire::Body::AuthResponse, r.Union());
}

Bytes batch(uint64_t seq, const std::vector<Cmd> &commands, bool replyWanted) {
  fb::FlatBufferBuilder fbb;
  std::vector<fb::Offset<wire::CommandEntry>> entries;
  for (const Cmd &c : commands)
    entries.push_back(c(fbb));
  auto b = wire::CreateBatchDirect(fbb, seq, &entries, replyWanted);
  return finish(fbb, wire::Body::Batch, b.Union());
}

Cmd cMalloc(uint64_t size) {
  return entry<wire::Malloc>(
      [=](fb::FlatBufferBuilder &f) { return wire::CreateMalloc(f, size); });
}
Cmd cFree(uint64_t addr) {
  return entry<wire::Free>(
      [=](fb::FlatBufferBuilder &f) { return wire::CreateFree(f, addr); });
}
Cmd cH2D(uint64_t dst, const Bytes &data, uint64_t stream) {
  return entry<wire::MemcpyH2D>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemcpyH2DDirect(f, dst, &data, stream);
  });
}
Cmd cD2H(uint64_t src, uint64_t size, uint64_t stream, bool rma, uint64_t addr,
         uint64_t key) {
  return entry<wire::MemcpyD2H>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemcpyD2H(f, src, size, stream, rma, addr, key);
  });
}
Cmd cH2DRing(uint64_t dst, uint64_t ringOffset, uint64_t size, uint64_t ringEnd,
             uint64_t stream) {
  return entry<wire::MemcpyH2DRing>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemcpyH2DRing(f, dst, stream, ringOffset, size, ringEnd);
  });
}
namespace {
std::vector<wire::ChunkHash> wireHashes(const std::vector<ContentHash> &h) {
  std::vector<wire::ChunkHash> out;
  for (const ContentHash &one : h)
    out.push_back(one.wire());
  return out;
}
} // namespace

Cmd cH2DCached(uint64_t dst, uint64_t size,
               const std::vector<ContentHash> &hashes, uint64_t stream) {
  return entry<wire::MemcpyH2DCached>([=](fb::FlatBufferBuilder &f) {
    auto named = wireHashes(hashes);
    return wire::CreateMemcpyH2DCachedDirect(f, dst, stream, size, &named);
  });
}
Cmd cCacheInsert(uint64_t dst, uint64_t size, const ContentHash &hash,
                 uint64_t stream) {
  return entry<wire::CacheInsert>([=](fb::FlatBufferBuilder &f) {
    wire::ChunkHash h = hash.wire();
    return wire::CreateCacheInsert(f, dst, stream, size, &h);
  });
}
Cmd cCacheControl(bool evict, const std::vector<ContentHash> &hashes) {
  return entry<wire::CacheControl>([=](fb::FlatBufferBuilder &f) {
    auto named = wireHashes(hashes);
    return wire::CreateCacheControlDirect(f, evict, &named);
  });
}
Cmd cHostShare(uint64_t size) {
  return entry<wire::HostShare>(
      [=](fb::FlatBufferBuilder &f) { return wire::CreateHostShare(f, size); });
}
Cmd cHostUnshare(uint64_t region) {
  return entry<wire::HostUnshare>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateHostUnshare(f, region);
  });
}
Cmd cD2HShared(uint64_t src, uint64_t size, uint64_t region, uint64_t offset,
               uint64_t stream) {
  return entry<wire::MemcpyD2H>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemcpyD2H(f, src, size, stream, false, 0, 0, region,
                                 offset);
  });
}
Cmd cH2DShared(uint64_t dst, uint64_t size, uint64_t region, uint64_t offset,
               uint64_t stream) {
  return entry<wire::MemcpyH2D>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemcpyH2D(f, dst, 0, stream, region, offset, size);
  });
}
Cmd cD2D(uint64_t dst, uint64_t src, uint64_t size, uint64_t stream) {
  return entry<wire::MemcpyD2D>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemcpyD2D(f, dst, src, size, stream);
  });
}
Cmd cMemset(uint64_t dst, uint8_t value, uint64_t size, uint64_t stream) {
  return entry<wire::Memset>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemset(f, dst, value, size, stream);
  });
}
Cmd cLaunch(uint64_t kernel, const Bytes &args, uint64_t stream,
            std::vector<uint32_t> grid, std::vector<uint32_t> block,
            uint32_t shmem) {
  return entry<wire::Launch>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateLaunchDirect(f, kernel, &grid, &block, shmem, stream,
                                    &args);
  });
}
Cmd cStreamCreate(uint64_t h) {
  return entry<wire::StreamCreate>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateStreamCreate(f, h, 0, 0);
  });
}
Cmd cStreamDestroy(uint64_t h) {
  return entry<wire::StreamDestroy>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateStreamDestroy(f, h);
  });
}
Cmd cStreamSync(uint64_t h) {
  return entry<wire::StreamSynchronize>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateStreamSynchronize(f, h);
  });
}
Cmd cStreamQuery(uint64_t h) {
  return entry<wire::StreamQuery>(
      [=](fb::FlatBufferBuilder &f) { return wire::CreateStreamQuery(f, h); });
}
Cmd cDeviceSync() {
  return entry<wire::DeviceSynchronize>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateDeviceSynchronize(f);
  });
}
Cmd cEventCreate(uint64_t h, uint32_t flags) {
  return entry<wire::EventCreate>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateEventCreate(f, h, flags);
  });
}
Cmd cEventRecord(uint64_t e, uint64_t s) {
  return entry<wire::EventRecord>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateEventRecord(f, e, s);
  });
}
Cmd cEventQuery(uint64_t e) {
  return entry<wire::EventQuery>(
      [=](fb::FlatBufferBuilder &f) { return wire::CreateEventQuery(f, e); });
}
Cmd cEventSync(uint64_t e) {
  return entry<wire::EventSynchronize>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateEventSynchronize(f, e);
  });
}
Cmd cEventElapsed(uint64_t a, uint64_t b) {
  return entry<wire::EventElapsedTime>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateEventElapsedTime(f, a, b);
  });
}
Cmd cDeviceLimit(int limit, uint64_t value, bool set) {
  return entry<wire::DeviceLimit>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateDeviceLimit(f, limit, value, set);
  });
}
Cmd cStreamWaitEvent(uint64_t s, uint64_t e) {
  return entry<wire::StreamWaitEvent>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateStreamWaitEvent(f, s, e, 0);
  });
}
Cmd cSymbolWrite(uint64_t var, uint64_t offset, const Bytes &data) {
  return entry<wire::SymbolWrite>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateSymbolWriteDirect(f, var, offset, &data, 0);
  });
}
Cmd cSymbolRead(uint64_t var, uint64_t offset, uint64_t size) {
  return entry<wire::SymbolRead>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateSymbolRead(f, var, offset, size, 0);
  });
}
Cmd cSymbolAddress(uint64_t var) {
  return entry<wire::SymbolAddress>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateSymbolAddress(f, var);
  });
}
Cmd cSetDevice(int device) {
  return entry<wire::SetDevice>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateSetDevice(f, device);
  });
}
Cmd cPeerAccess(int peer, bool enable) {
  return entry<wire::PeerAccess>([=](fb::FlatBufferBuilder &f) {
    return wire::CreatePeerAccess(f, peer, enable);
  });
}
Cmd cGoodbye() {
  return entry<wire::Goodbye>(
      [=](fb::FlatBufferBuilder &f) { return wire::CreateGoodbye(f); });
}

Bytes scaleArgs(uint64_t ptr, int32_t n) {
  Bytes b(16, 0);
  std::memcpy(b.data(), &ptr, 8);
  std::memcpy(b.data() + 8, &n, 4);
  return b;
}
Bytes consumeArgs(uint64_t tag, uint64_t ptr) {
  Bytes b(16, 0);
  std::memcpy(b.data(), &tag, 8);
  std::memcpy(b.data() + 8, &ptr, 8);
  return b;
}

namespace {
const wire::Message *verified(const Bytes &b) {
  if (b.size() < 8 || !fb::BufferHasIdentifier(b.data(), "RCW1"))
    return nullptr;
  fb::Verifier v(b.data(), b.size());
  return wire::VerifyMessageBuffer(v) ? wire::GetMessage(b.data()) : nullptr;
}
} // namespace

const wire::HelloReply *asHelloReply(const Bytes &b) {
  const wire::Message *m = verified(b);
  return m ? m->body_as_HelloReply() : nullptr;
}
const wire::AuthChallenge *asAuthChallenge(const Bytes &b) {
  const wire::Message *m = verified(b);
  return m ? m->body_as_AuthChallenge() : nullptr;
}
const wire::BatchReply *asBatchReply(const Bytes &b) {
  const wire::Message *m = verified(b);
  return m ? m->body_as_BatchReply() : nullptr;
}
const wire::Result *resultAt(const wire::BatchReply *r, uint32_t index) {
  if (r && r->results())
    for (const wire::Result *x : *r->results())
      if (x->index() == index)
        return x;
  return nullptr;
}

transport::Status MemConnection::send(const void *data, size_t size) {
  std::lock_guard<std::mutex> lock(out_->mutex);
  if (out_->closed)
    return transport::Status::Closed;
  auto p = static_cast<const uint8_t *>(data);
  out_->queue.emplace_back(p, p + size);
  out_->cv.notify_all();
  return transport::Status::Ok;
}

transport::Status MemConnection::recv(Bytes &message, int timeoutMs) {
  std::unique_lock<std::mutex> lock(in_->mutex);
  auto ready = [&] { return !in_->queue.empty() || in_->closed; };
  if (timeoutMs < 0)
    in_->cv.wait(lock, ready);
  else if (!in_->cv.wait_for(lock, std::chrono::milliseconds(timeoutMs), ready))
    return transport::Status::Timeout;
  if (in_->queue.empty())
    return transport::Status::Closed;
  message = std::move(in_->queue.front());
  in_->queue.pop_front();
  return transport::Status::Ok;
}

bool MemConnection::peerAlive() {
  std::lock_guard<std::mutex> lock(in_->mutex);
  return !in_->closed;
}

void MemConnection::close() {
  for (auto &p : {in_, out_}) {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->closed = true;
    p->cv.notify_all();
  }
}

std::pair<std::unique_ptr<MemConnection>, std::unique_ptr<MemConnection>>
memPair() {
  auto a = std::make_shared<Pipe>(), b = std::make_shared<Pipe>();
  return {std::make_unique<MemConnection>(a, b),
          std::make_unique<MemConnection>(b, a)};
}

Bytes roundTrip(transport::Connection &conn, const Bytes &msg, int timeoutMs) {
  EXPECT_EQ(conn.send(msg.data(), msg.size()), transport::Status::Ok)
      << conn.lastError();
  Bytes reply;
  EXPECT_EQ(conn.recv(reply, timeoutMs), transport::Status::Ok)
      << conn.lastError();
  return reply;
}

std::shared_ptr<uint8_t> mapServerFile(const std::string &name, size_t size) {
  int fd = shm_open(name.c_str(), O_RDWR, 0);
  EXPECT_GE(fd, 0) << name << ": " << std::strerror(errno);
  if (fd < 0)
    return nullptr;
  void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  EXPECT_EQ(shm_unlink(name.c_str()), 0) << name;
  EXPECT_NE(p, MAP_FAILED) << name;
  if (p == MAP_FAILED)
    return nullptr;
  return std::shared_ptr<uint8_t>(static_cast<uint8_t *>(p),
                                  [size](uint8_t *q) { munmap(q, size); });
}

bool noUsableGpu(const std::string &startError) {
  for (const char *sign :
       {"libcuda.so.1", "cuInit", "does not exist", "sees no device"})
    if (startError.find(sign) != std::string::npos)
      return true;
  return false;
}

::testing::AssertionResult startOnTestDevice(ServerCore &core,
                                             const std::string &manifestPath,
                                             int devices,
                                             const std::string &authKeyFile) {
  ServerOptions o;
  o.manifests = {manifestPath};
  o.testDevice = true;
  o.testDevices = devices;
  o.authKeyFile = authKeyFile;
  std::string err;
  // The environment's settings, as rc-server's main reads them.
  if (!ServerSettings::fromEnv(&o.settings, &err))
    return ::testing::AssertionFailure() << err;
  if (core.start(o, &err))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "rc-server core did not start: " << err;
}

} // namespace rc::server::test
