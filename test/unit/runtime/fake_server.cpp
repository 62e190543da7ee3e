#include "fake_server.h"
#include "rc/kernel_id.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace rc::test {

using namespace rc::wire;
using rc::transport::Status;

namespace {
std::vector<uint8_t> finish(flatbuffers::FlatBufferBuilder &fbb, Body type,
                            flatbuffers::Offset<void> body) {
  FinishMessageBuffer(fbb, CreateMessage(fbb, type, body));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

std::vector<uint8_t> helloReply(bool ok) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<int32_t> attrs(140, 0);
  attrs[1] = 1024;             // MAX_THREADS_PER_BLOCK
  attrs[2] = attrs[3] = 1024;  // MAX_BLOCK_DIM_X/Y
  attrs[4] = 64;               // MAX_BLOCK_DIM_Z
  attrs[5] = 2147483647;       // MAX_GRID_DIM_X
  attrs[6] = attrs[7] = 65535; // MAX_GRID_DIM_Y/Z
  attrs[10] = 32;              // WARP_SIZE
  attrs[16] = 132;             // MULTIPROCESSOR_COUNT
  attrs[75] = 9;               // COMPUTE_CAPABILITY_MAJOR
  attrs[76] = 0;               // COMPUTE_CAPABILITY_MINOR
  attrs[97] = 232448;          // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  std::vector<uint8_t> uuid(16, 0xab);
  auto dev = CreateDeviceInfoDirect(fbb, "FakeGPU", 80ull << 30, &uuid, &attrs,
                                    "host-test");
  std::vector<flatbuffers::Offset<DeviceInfo>> devs{dev};
  auto reply = CreateHelloReplyDirect(fbb, ok, ok ? "" : "bad token", 7,
                                      ok ? &devs : nullptr);
  return finish(fbb, Body::HelloReply, reply.Union());
}

std::vector<uint8_t> retryLater(uint32_t retryMs) {
  flatbuffers::FlatBufferBuilder fbb;
  auto error = fbb.CreateString("busy for now; retry in " +
                                std::to_string(retryMs) + " ms");
  HelloReplyBuilder hr(fbb);
  hr.add_ok(false);
  hr.add_error(error);
  hr.add_retry_after_ms(retryMs);
  return finish(fbb, Body::HelloReply, hr.Finish().Union());
}

std::vector<uint8_t> bodiless(Body type) {
  flatbuffers::FlatBufferBuilder fbb;
  return finish(fbb, type, 0);
}
} // namespace

uint8_t *FakeConnection::deviceBytes(uint64_t addr, uint64_t size) {
  auto it = s_->memory.upper_bound(addr);
  if (it == s_->memory.begin())
    return nullptr;
  --it;
  if (addr + size > it->first + it->second.size())
    return nullptr;
  return it->second.data() + (addr - it->first);
}

Status FakeConnection::send(const void *data, size_t size) {
  flatbuffers::Verifier v(static_cast<const uint8_t *>(data), size);
  if (!VerifyMessageBuffer(v))
    return Status::Error;
  const Message *m = GetMessage(data);
  std::lock_guard<std::mutex> l(s_->mu);
  if (m->body_type() == Body::Hello) {
    ++s_->hellos;
    if (s_->refusalsWorthRetrying > 0) {
      --s_->refusalsWorthRetrying;
      s_->toClient.push_back(retryLater(s_->retryMs));
      s_->cv.notify_all();
      return Status::Ok;
    }
    if (s_->helloDelayMs > 0) {
      // A server busy creating contexts: the answer comes from elsewhere.
      std::thread([s = s_, ok = !s_->refuse] {
        std::this_thread::sleep_for(std::chrono::milliseconds(s->helloDelayMs));
        std::lock_guard<std::mutex> late(s->mu);
        s->toClient.push_back(helloReply(ok));
        s->cv.notify_all();
      }).detach();
      return Status::Ok;
    }
    s_->toClient.push_back(s_->bodilessHelloReply ? bodiless(Body::HelloReply)
                                                  : helloReply(!s_->refuse));
  } else if (m->body_type() == Body::Batch) {
    handleBatch(*m->body_as_Batch());
  } else {
    return Status::Error;
  }
  s_->cv.notify_all();
  return Status::Ok;
}

void FakeConnection::handleBatch(const Batch &b) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<Result>> results;
  std::vector<flatbuffers::Offset<Error>> errors;
  size_t n = b.commands() ? b.commands()->size() : 0;
  s_->batchSizes.push_back(n);
  s_->batchReplyWanted.push_back(b.reply_wanted());
  for (uint32_t i = 0; i < n; ++i) {
    const CommandEntry *e = b.commands()->Get(i);
    s_->commands.push_back(e->cmd_type());
    auto fail = [&](int code, const char *msg) {
      errors.push_back(CreateErrorDirect(fbb, b.seq(), i, code, msg));
    };
    switch (e->cmd_type()) {
    case Command::Malloc: {
      uint64_t addr = s_->nextAddr;
      s_->nextAddr += (e->cmd_as_Malloc()->size() + 0xfff) & ~0xfffull;
      s_->memory[addr].assign(e->cmd_as_Malloc()->size(), 0);
      results.push_back(CreateResult(fbb, i, addr));
      break;
    }
    case Command::Free:
      if (!s_->memory.erase(e->cmd_as_Free()->addr()))
        fail(1, "cudaFree of an unknown address");
      break;
    case Command::MemcpyH2D: {
      auto *c = e->cmd_as_MemcpyH2D();
      uint8_t *d = deviceBytes(c->dst(), c->data()->size());
      if (!d) {
        fail(1, "MemcpyH2D out of bounds");
        break;
      }
      std::memcpy(d, c->data()->data(), c->data()->size());
      break;
    }
    case Command::MemcpyD2H: {
      auto *c = e->cmd_as_MemcpyD2H();
      uint8_t *src = deviceBytes(c->src(), c->size());
      if (!src) {
        fail(1, "MemcpyD2H out of bounds");
        break;
      }
      auto payload = fbb.CreateVector(src, c->size());
      results.push_back(CreateResult(fbb, i, 0, 0, 0, payload));
      break;
    }
    case Command::MemcpyD2D: {
      auto *c = e->cmd_as_MemcpyD2D();
      uint8_t *d = deviceBytes(c->dst(), c->size());
      uint8_t *src = deviceBytes(c->src(), c->size());
      if (!d || !src)
        fail(1, "MemcpyD2D out of bounds");
      else
        std::memmove(d, src, c->size());
      break;
    }
    case Command::Memset: {
      auto *c = e->cmd_as_Memset();
      uint8_t *d = deviceBytes(c->dst(), c->size());
      if (!d)
        fail(1, "Memset out of bounds");
      else
        std::memset(d, c->value(), c->size());
      break;
    }
    case Command::Launch: {
      auto *c = e->cmd_as_Launch();
      RecordedLaunch l{
          c->kernel_id(),  {},          {},
          c->shared_mem(), c->stream(), {c->args()->begin(), c->args()->end()}};
      for (int k = 0; k < 3; ++k) {
        l.grid[k] = c->grid()->Get(k);
        l.block[k] = c->block()->Get(k);
      }
      s_->launches.push_back(l);
      if (c->kernel_id() == s_->failKernel)
        fail(s_->failCode, "an illegal memory access was encountered");
      break;
    }
    case Command::StreamQuery:
    case Command::EventQuery:
      results.push_back(CreateResult(fbb, i, 0, 0, 0));
      break;
    case Command::EventElapsedTime:
      results.push_back(CreateResult(fbb, i, 0, 1.5));
      break;
    case Command::SymbolAddress: {
      uint64_t id = e->cmd_as_SymbolAddress()->variable_id();
      auto it = s_->symbols.find(id);
      if (it == s_->symbols.end())
        fail(13, "unknown variable");
      else
        results.push_back(CreateResult(fbb, i, it->second));
      break;
    }
    default:
      break; // streams, events, syncs: nothing to simulate
    }
  }
  if (!b.reply_wanted() && errors.empty())
    return;
  auto reply = CreateBatchReplyDirect(fbb, b.seq(), &results, &errors);
  s_->toClient.push_back(s_->bodilessBatchReply
                             ? bodiless(Body::BatchReply)
                             : finish(fbb, Body::BatchReply, reply.Union()));
}

Status FakeConnection::recv(std::vector<uint8_t> &message, int timeoutMs) {
  std::unique_lock<std::mutex> l(s_->mu);
  auto ready = [&] { return !s_->toClient.empty(); };
  if (timeoutMs < 0)
    s_->cv.wait(l, ready);
  else if (!s_->cv.wait_for(l, std::chrono::milliseconds(timeoutMs), ready))
    return Status::Timeout;
  message = std::move(s_->toClient.front());
  s_->toClient.pop_front();
  return Status::Ok;
}

std::unique_ptr<rc::LoadedManifest>
makeManifest(uint64_t fatbinHash, const std::vector<TestKernel> &kernels,
             const std::vector<TestVariable> &vars) {
  using namespace rc::manifest;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<Kernel>> ks;
  for (const TestKernel &k : kernels) {
    std::vector<flatbuffers::Offset<Param>> ps;
    for (const TestParam &p : k.params)
      ps.push_back(CreateParamDirect(fbb, "p", "T", p.offset, p.size, p.align));
    std::vector<flatbuffers::Offset<LaunchSite>> sites{
        CreateLaunchSiteDirect(fbb, k.file.c_str(), k.line, 3, "chevron")};
    ks.push_back(CreateKernelDirect(fbb, k.id, k.name.c_str(),
                                    k.demangled.c_str(), false, 0, &ps,
                                    k.argsSize, &sites));
  }
  std::vector<flatbuffers::Offset<Variable>> vs;
  for (const TestVariable &v : vars)
    vs.push_back(CreateVariableDirect(fbb, v.id, v.name.c_str(), v.name.c_str(),
                                      false, v.size));
  std::vector<uint8_t> fatbin{1, 2, 3};
  std::vector<flatbuffers::Offset<Module>> mods{
      CreateModuleDirect(fbb, "test.cu", fatbinHash, &fatbin)};
  FinishManifestBuffer(fbb, CreateManifestDirect(fbb, 1, &mods, &ks, &vs));
  auto m = std::make_unique<rc::LoadedManifest>();
  m->path = "test.rcm";
  m->bytes.assign(fbb.GetBufferPointer(),
                  fbb.GetBufferPointer() + fbb.GetSize());
  m->hash = rc::fnv1a64(m->bytes.data(), m->bytes.size());
  m->root = GetManifest(m->bytes.data());
  return m;
}

std::unique_ptr<rc::rt::Runtime>
makeRuntime(std::shared_ptr<FakeState> state, rc::rt::Options opts,
            std::shared_ptr<rc::LoadedManifest> manifest) {
  auto connect = [state](int, std::string *) {
    return std::unique_ptr<rc::transport::Connection>(
        new FakeConnection(state));
  };
  auto load = [manifest](rc::rt::KernelIndex &index) {
    if (!manifest)
      return;
    // A copy owns its bytes; its root must point into them.
    auto copy = std::make_unique<rc::LoadedManifest>(*manifest);
    copy->root = rc::manifest::GetManifest(copy->data());
    index.add(std::move(copy));
  };
  return std::make_unique<rc::rt::Runtime>(connect, load, opts);
}

rc::rt::Options quietOptions() {
  rc::rt::Options o;
  o.flusherThread = false;
  o.batchAgeUs = int64_t(3600) * 1000000; // never ages during a test
  return o;
}

} // namespace rc::test
