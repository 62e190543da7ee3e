#include "command_generator.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace rc::fuzz {

namespace {
using namespace rc::wire;
using Fbb = flatbuffers::FlatBufferBuilder;

// Values at the edges of what the server checks.
constexpr uint64_t kEdges[] = {0,
                               1,
                               7,
                               8,
                               255,
                               4096,
                               (1u << 20),
                               (1u << 31),
                               (1ull << 32) - 1,
                               (1ull << 32),
                               1ull << 40,
                               UINT64_MAX / 2,
                               UINT64_MAX - 4095,
                               UINT64_MAX};
} // namespace

CommandGenerator::CommandGenerator(const std::vector<LoadedManifest> &manifests,
                                   std::mt19937_64 &rng)
    : rng_(rng) {
  for (const LoadedManifest &m : manifests) {
    if (m.root->kernels())
      for (const manifest::Kernel *k : *m.root->kernels()) {
        Kernel info{k->id(), k->args_size(), {}};
        if (k->params())
          for (const manifest::Param *p : *k->params()) {
            if (p->kind() == manifest::ParamKind::Pointer)
              info.pointerOffsets.push_back(p->offset());
            if (p->pointer_offsets())
              for (uint32_t off : *p->pointer_offsets())
                info.pointerOffsets.push_back(p->offset() + off);
          }
        kernels_.push_back(info);
      }
    if (m.root->variables())
      for (const manifest::Variable *v : *m.root->variables())
        variables_.push_back({v->id(), v->size()});
  }
}

void CommandGenerator::reset() {
  allocations_.clear();
  streams_.clear(), events_.clear(), graphs_.clear(), blas_.clear();
  regions_.clear(), vmm_.clear();
  sent_.clear();
}

bool CommandGenerator::chance(int percent) {
  return int(rng_() % 100) < percent;
}

int32_t CommandGenerator::small(int32_t lo, int32_t hi) {
  return lo + int32_t(rng_() % uint64_t(hi - lo + 1));
}

uint64_t CommandGenerator::size() {
  if (chance(60))
    return rng_() % 8192;
  if (chance(50))
    return kEdges[rng_() % std::size(kEdges)];
  return rng_() >> (rng_() % 64);
}

uint64_t CommandGenerator::address() {
  if (!allocations_.empty() && chance(80)) {
    const auto &a = allocations_[rng_() % allocations_.size()];
    uint64_t off = chance(70) ? rng_() % (a.second + 1) : size();
    return chance(90) ? a.first + off : a.first - off;
  }
  return chance(50) ? kEdges[rng_() % std::size(kEdges)] : rng_();
}

uint64_t CommandGenerator::handle(const std::vector<uint64_t> &known) {
  if (!known.empty() && chance(75))
    return known[rng_() % known.size()];
  return chance(70) ? uint64_t(rng_() % 20) : rng_();
}

std::vector<uint8_t> CommandGenerator::bytes(size_t max) {
  std::vector<uint8_t> b(rng_() % (max + 1));
  for (uint8_t &x : b)
    x = uint8_t(rng_());
  return b;
}

std::vector<uint8_t> CommandGenerator::launchArgs(const Kernel &k) {
  size_t n = chance(85) ? k.argsSize : rng_() % (k.argsSize + 16);
  std::vector<uint8_t> args(n);
  for (uint8_t &x : args)
    x = uint8_t(rng_());
  for (uint32_t off : k.pointerOffsets)
    if (off + 8 <= n) {
      uint64_t p = chance(10) ? 0 : address();
      std::memcpy(args.data() + off, &p, 8);
    }
  return args;
}

CommandGenerator::Entry CommandGenerator::graphNode(Fbb &fbb) {
  switch (rng_() % 4) {
  case 0: {
    if (kernels_.empty())
      break;
    const Kernel &k = kernels_[rng_() % kernels_.size()];
    std::vector<uint32_t> grid{uint32_t(small(0, 4)), 1, 1},
        block{uint32_t(small(0, 256)), 1, 1};
    auto l = CreateLaunchDirect(fbb, k.id, &grid, &block, 0, 0, nullptr);
    return CreateCommandEntry(fbb, Command::Launch, l.Union());
  }
  case 1:
    return CreateCommandEntry(
        fbb, Command::Memset,
        CreateMemset(fbb, address(), uint8_t(rng_()), size(), 0).Union());
  case 2:
    return CreateCommandEntry(
        fbb, Command::MemcpyD2D,
        CreateMemcpyD2D(fbb, address(), address(), size(), 0).Union());
  default:
    break;
  }
  // A node naming a type without its table, or one that is no node.
  return CreateCommandEntry(fbb, Command(small(0, int(Command::MAX))), 0);
}

CommandGenerator::Entry CommandGenerator::command(Fbb &fbb, int depth) {
  auto type = Command(small(1, int(Command::MAX)));
  uint64_t asked = 0;
  flatbuffers::Offset<void> body;
  switch (type) {
  case Command::Malloc:
    asked = chance(80) ? rng_() % (1 << 20) : size();
    body = CreateMalloc(fbb, asked).Union();
    break;
  case Command::Free:
    body =
        CreateFree(fbb, chance(80) && !allocations_.empty()
                            ? allocations_[rng_() % allocations_.size()].first
                            : address())
            .Union();
    break;
  case Command::MemcpyH2D: {
    auto data = bytes(chance(90) ? 512 : 70000);
    body = CreateMemcpyH2DDirect(fbb, address(), &data, stream()).Union();
    break;
  }
  case Command::MemcpyD2H:
    body = CreateMemcpyD2H(fbb, address(), chance(90) ? size() % 65536 : size(),
                           stream(), chance(20), rng_(), rng_(),
                           chance(20) ? handle(regions_) : 0,
                           chance(50) ? rng_() % 65536 : size())
               .Union();
    break;
  case Command::MemcpyH2DRing:
    body = CreateMemcpyH2DRing(fbb, address(), stream(), size(), size(), size())
               .Union();
    break;
  case Command::MemcpyD2D:
    body = CreateMemcpyD2D(fbb, address(), address(), size(), stream()).Union();
    break;
  case Command::Memset:
    body =
        CreateMemset(fbb, address(), uint8_t(rng_()), size(), stream()).Union();
    break;
  case Command::Launch: {
    if (kernels_.empty())
      return CreateCommandEntry(fbb, type, 0);
    const Kernel &k = kernels_[rng_() % kernels_.size()];
    std::vector<uint32_t> grid, block;
    int dims = chance(90) ? 3 : small(0, 5);
    for (int i = 0; i < dims; ++i) {
      grid.push_back(chance(90) ? uint32_t(small(1, 64)) : uint32_t(rng_()));
      block.push_back(chance(90) ? uint32_t(small(1, 256)) : uint32_t(rng_()));
    }
    auto args = launchArgs(chance(95) ? k : kernels_[rng_() % kernels_.size()]);
    uint64_t id = chance(95) ? k.id : rng_();
    body = CreateLaunchDirect(fbb, id, &grid, &block,
                              chance(90) ? 0 : uint32_t(rng_()), stream(),
                              &args, chance(10), chance(10))
               .Union();
    break;
  }
  case Command::StreamCreate: {
    uint64_t h = chance(90) ? nextHandle_++ : handle(streams_);
    streams_.push_back(h);
    body =
        CreateStreamCreate(fbb, h, uint32_t(small(0, 2)), small(-2, 1)).Union();
    break;
  }
  case Command::StreamDestroy:
    body = CreateStreamDestroy(fbb, stream()).Union();
    break;
  case Command::StreamSynchronize:
    body = CreateStreamSynchronize(fbb, stream()).Union();
    break;
  case Command::StreamQuery:
    body = CreateStreamQuery(fbb, stream()).Union();
    break;
  case Command::DeviceSynchronize:
    body = CreateDeviceSynchronize(fbb).Union();
    break;
  case Command::EventCreate: {
    uint64_t h = chance(90) ? nextHandle_++ : handle(events_);
    events_.push_back(h);
    body = CreateEventCreate(fbb, h, uint32_t(small(0, 7))).Union();
    break;
  }
  case Command::EventDestroy:
    body = CreateEventDestroy(fbb, handle(events_)).Union();
    break;
  case Command::EventRecord:
    body = CreateEventRecord(fbb, handle(events_), stream()).Union();
    break;
  case Command::EventSynchronize:
    body = CreateEventSynchronize(fbb, handle(events_)).Union();
    break;
  case Command::EventQuery:
    body = CreateEventQuery(fbb, handle(events_)).Union();
    break;
  case Command::EventElapsedTime:
    body =
        CreateEventElapsedTime(fbb, handle(events_), handle(events_)).Union();
    break;
  case Command::StreamWaitEvent:
    body = CreateStreamWaitEvent(fbb, stream(), handle(events_),
                                 uint32_t(small(0, 1)))
               .Union();
    break;
  case Command::SymbolWrite:
  case Command::SymbolRead:
  case Command::SymbolAddress: {
    uint64_t id = !variables_.empty() && chance(90)
                      ? variables_[rng_() % variables_.size()].id
                      : rng_();
    uint64_t off = chance(70) ? rng_() % 64 : size();
    if (type == Command::SymbolWrite) {
      auto data = bytes(96);
      body = CreateSymbolWriteDirect(fbb, id, off, &data, stream()).Union();
    } else if (type == Command::SymbolRead) {
      body = CreateSymbolRead(fbb, id, off, size(), stream()).Union();
    } else {
      body = CreateSymbolAddress(fbb, id).Union();
    }
    break;
  }
  case Command::SetDevice:
    body = CreateSetDevice(fbb, chance(80) ? small(0, 2) : int32_t(rng_()))
               .Union();
    break;
  case Command::PeerAccess:
    body = CreatePeerAccess(fbb, small(-1, 2), chance(50)).Union();
    break;
  case Command::Goodbye:
    if (!chance(10)) // ends the session: rarely
      return command(fbb, depth);
    body = CreateGoodbye(fbb).Union();
    break;
  case Command::FuncSetAttribute:
    body = CreateFuncSetAttribute(
               fbb, kernels_.empty() ? rng_() : kernels_[0].id, small(-1, 20),
               chance(50) ? small(-1, 300000) : int32_t(rng_()))
               .Union();
    break;
  case Command::MemAddressReserve:
    body = CreateMemAddressReserve(fbb, size(), size()).Union();
    break;
  case Command::MemAddressFree:
    body = CreateMemAddressFree(fbb, address(), size()).Union();
    break;
  case Command::MemCreate: {
    uint64_t h = nextHandle_++;
    vmm_.push_back(h);
    body = CreateMemCreate(fbb, h, size(), small(-1, 2)).Union();
    break;
  }
  case Command::MemRelease:
    body = CreateMemRelease(fbb, handle(vmm_)).Union();
    break;
  case Command::MemMap:
    body = CreateMemMap(fbb, address(), size(), size(), handle(vmm_)).Union();
    break;
  case Command::MemUnmap:
    body = CreateMemUnmap(fbb, address(), size()).Union();
    break;
  case Command::MemSetAccess: {
    std::vector<int32_t> devices;
    for (int i = small(0, 3); i > 0; --i)
      devices.push_back(small(-1, 3));
    body = CreateMemSetAccessDirect(fbb, address(), size(), &devices).Union();
    break;
  }
  case Command::GraphInstantiate:
  case Command::GraphExecUpdate: {
    if (depth > 0)
      return command(fbb, depth);
    std::vector<Entry> nodes;
    std::vector<uint32_t> indices;
    for (int i = small(0, 6); i > 0; --i) {
      nodes.push_back(chance(80) ? graphNode(fbb) : command(fbb, depth + 1));
      indices.push_back(chance(90) ? uint32_t(small(0, 6)) : uint32_t(rng_()));
    }
    if (type == Command::GraphInstantiate) {
      uint64_t h = chance(90) ? nextHandle_++ : handle(graphs_);
      graphs_.push_back(h);
      body = CreateGraphInstantiateDirect(fbb, h, &nodes).Union();
    } else {
      if (chance(10) && !indices.empty())
        indices.pop_back(); // indices and nodes of different lengths
      body = CreateGraphExecUpdateDirect(fbb, handle(graphs_), &indices, &nodes)
                 .Union();
    }
    break;
  }
  case Command::GraphLaunch:
    body = CreateGraphLaunch(fbb, handle(graphs_), stream()).Union();
    break;
  case Command::GraphExecDestroy:
    body = CreateGraphExecDestroy(fbb, handle(graphs_)).Union();
    break;
  case Command::CublasCreate: {
    uint64_t h = nextHandle_++;
    blas_.push_back(h);
    body = CreateCublasCreate(fbb, h).Union();
    break;
  }
  case Command::CublasDestroy:
    body = CreateCublasDestroy(fbb, handle(blas_)).Union();
    break;
  case Command::CublasSetWorkspace:
    body =
        CreateCublasSetWorkspace(fbb, handle(blas_), address(), size()).Union();
    break;
  case Command::CublasGemm: {
    auto operand = [&] {
      return CublasOperand(address(),
                           chance(80) ? small(1, 64) : int64_t(rng_()),
                           chance(80) ? small(0, 4096) : int64_t(rng_()),
                           chance(80) ? small(0, 14) : int32_t(rng_()));
    };
    CublasOperand a = operand(), b = operand(), c = operand();
    auto alpha = bytes(8), beta = bytes(8);
    body = CreateCublasGemmDirect(
               fbb, CublasGemmApi(small(0, 7)), handle(blas_), stream(),
               chance(80) ? uint32_t(small(0, 3)) : uint32_t(rng_()),
               small(-1, 3), small(-1, 3), small(-1, 64), small(-1, 64),
               small(-1, 64), &alpha, &beta, &a, &b, &c, small(-1, 8),
               chance(80) ? small(64, 80) : int32_t(rng_()),
               chance(80) ? small(-1, 24) : int32_t(rng_()))
               .Union();
    break;
  }
  case Command::CublasTrsmBatched:
    body = CreateCublasTrsmBatched(
               fbb, handle(blas_), stream(), uint32_t(small(0, 3)),
               small(-1, 2), small(-1, 2), small(-1, 3), small(-1, 2),
               small(-1, 32), small(-1, 32), 1.0f, address(), small(0, 64),
               address(), small(0, 64), small(-1, 8))
               .Union();
    break;
  case Command::CublasLuBatched:
    body = CreateCublasLuBatched(
               fbb, handle(blas_), stream(), uint32_t(small(0, 3)), chance(50),
               chance(80) ? small(0, 5) : int32_t(rng_()), small(-1, 32),
               address(), small(0, 64), chance(30) ? 0 : address(), address(),
               small(0, 64), address(), small(-1, 8))
               .Union();
    break;
  case Command::HostShare:
    body =
        CreateHostShare(fbb, chance(80) ? rng_() % (1 << 20) : size()).Union();
    break;
  case Command::HostUnshare:
    body = CreateHostUnshare(fbb, handle(regions_)).Union();
    break;
  case Command::ProfilerControl:
    body = CreateProfilerControl(fbb, chance(50)).Union();
    break;
  case Command::DeviceLimit:
    body = CreateDeviceLimit(fbb, chance(80) ? small(-1, 8) : int32_t(rng_()),
                             chance(80) ? size() : rng_(), chance(50))
               .Union();
    break;
  case Command::ArrayCreate: {
    uint64_t h = nextHandle_++;
    arrays_.push_back(h);
    int bits = chance(80) ? 8 << small(0, 2) : small(-1, 64);
    ChannelFormat format(bits, chance(50) ? bits : 0, 0, 0,
                         chance(80) ? small(0, 2) : int32_t(rng_()));
    body = CreateArrayCreate(fbb, h, &format, small(0, 300),
                             chance(80) ? small(0, 300) : rng_(),
                             chance(80) ? small(0, 8) : rng_(),
                             uint32_t(small(0, 15)))
               .Union();
    break;
  }
  case Command::ArrayDestroy:
    body = CreateArrayDestroy(fbb, handle(arrays_)).Union();
    break;
  case Command::ArrayCopy: {
    bool toArray = chance(50), device = chance(40);
    uint64_t w = chance(80) ? small(0, 1200) : rng_(),
             h = chance(80) ? small(0, 300) : rng_();
    std::vector<uint8_t> data;
    if (toArray && !device) { // mostly exactly the box's bytes
      data = bytes(size_t(small(0, 4096)));
      if (chance(80) && w * h < 65536)
        data.resize(size_t(w * h), uint8_t(rng_()));
    }
    body = CreateArrayCopyDirect(
               fbb, handle(arrays_), chance(80) ? small(0, 64) : rng_(),
               small(0, 300), small(0, 8), w, h, chance(80) ? 1 : small(0, 9),
               toArray, data.empty() ? nullptr : &data, device ? address() : 0,
               size(), small(0, 300), stream())
               .Union();
    break;
  }
  case Command::TextureCreate: {
    bool surface = chance(30);
    std::vector<int32_t> modes = {small(-1, 4), small(-1, 4), small(-1, 4)};
    std::vector<float> border = {0.5f, 0, 1, 0};
    ChannelFormat format(chance(80) ? 32 : small(-1, 40), 0, 0, 0, small(0, 3));
    body = CreateTextureCreateDirect(
               fbb, surface, small(-1, 4), handle(arrays_), address(), &format,
               size(), small(0, 300), size(), chance(90) ? &modes : nullptr,
               small(-1, 2), small(-1, 2), chance(10),
               chance(90) ? &border : nullptr, chance(50),
               uint32_t(small(0, 17)), chance(10), chance(10))
               .Union();
    break;
  }
  case Command::TextureDestroy:
    // Handles are the driver's: small numbers in practice.
    body = CreateTextureDestroy(fbb, chance(80) ? small(0, 64) : rng_(),
                                chance(30))
               .Union();
    break;
  case Command::ResetPersistingL2:
    body = CreateResetPersistingL2(fbb).Union();
    break;
  case Command::ModuleLoad: {
    uint64_t h = chance(90) ? nextHandle_++ : handle(modules_);
    modules_.push_back(h);
    // Mostly a small valid module, sometimes PTX with errors or noise.
    std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                      ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n"
                      "{\n  ret;\n}\n";
    std::vector<uint8_t> image(ptx.begin(), ptx.end());
    if (chance(20))
      image[size_t(small(0, int32_t(image.size()) - 1))] = uint8_t(rng_());
    if (chance(10))
      image = bytes(size_t(small(0, 512)));
    image.push_back(0);
    body = CreateModuleLoadDirect(fbb, h, &image).Union();
    break;
  }
  case Command::ModuleUnload:
    body = CreateModuleUnload(fbb, handle(modules_)).Union();
    break;
  case Command::ModuleFunction: {
    uint64_t h = chance(90) ? nextHandle_++ : handle(functions_);
    functions_.push_back(h);
    body = CreateModuleFunctionDirect(fbb, handle(modules_),
                                      chance(80) ? "k" : "missing", h)
               .Union();
    break;
  }
  case Command::FunctionAttributes:
    body = CreateFunctionAttributes(fbb, handle(functions_)).Union();
    break;
  case Command::LaunchFunction: {
    std::vector<uint32_t> grid = {uint32_t(small(0, 4)), 1, 1};
    std::vector<uint32_t> block = {uint32_t(small(0, 2048)), 1, 1};
    std::vector<uint8_t> args = bytes(chance(80) ? 12 : size_t(small(0, 64)));
    body =
        CreateLaunchFunctionDirect(fbb, handle(functions_), &grid, &block,
                                   uint32_t(small(0, 1 << 17)), stream(), &args)
            .Union();
    break;
  }
  case Command::LibCall: {
    // Rows of every shape: objects, counts and device memory, host
    // outputs, a table, and a name no row has.
    static const char *const kRows[] = {"curandCreateGenerator",
                                        "curandGenerateUniform",
                                        "curandGenerateUniform_host",
                                        "curandDestroyGenerator",
                                        "curandGetDirectionVectors32",
                                        "curandSetStream",
                                        "no_such_call"};
    std::vector<uint8_t> args = bytes(chance(70) ? 24 : size_t(small(0, 64)));
    if (args.size() >= 16 && chance(60)) { // a real address and count
      uint64_t a = address(), n = uint64_t(small(0, 4096));
      std::memcpy(args.data() + 8, &a, 8);
      if (args.size() >= 24)
        std::memcpy(args.data() + 16, &n, 8);
    }
    body = CreateLibCallDirect(fbb, kRows[rng_() % std::size(kRows)], &args)
               .Union();
    break;
  }
  case Command::MemcpyH2DCached: {
    // Hash counts right and wrong for the size; hashes the cache may hold
    // (zeros) or not.
    std::vector<ChunkHash> hashes(size_t(small(0, 6)));
    for (ChunkHash &h : hashes)
      h = chance(50) ? ChunkHash(0, 0) : ChunkHash(rng_(), rng_());
    body = CreateMemcpyH2DCachedDirect(fbb, address(), stream(),
                                       chance(70) ? size() % (9 << 20) : size(),
                                       &hashes)
               .Union();
    break;
  }
  case Command::CacheInsert: {
    ChunkHash hash(chance(50) ? 0 : rng_(), rng_());
    body = CreateCacheInsert(fbb, address(), stream(),
                             chance(80) ? size() % (5 << 20) : size(),
                             chance(90) ? &hash : nullptr)
               .Union();
    break;
  }
  case Command::CacheControl: {
    std::vector<ChunkHash> hashes(size_t(small(0, 2)), ChunkHash(rng_(), 0));
    body = CreateCacheControlDirect(fbb, chance(50), &hashes).Union();
    break;
  }
  case Command::TextureLinearWidth: {
    // Formats right and wrong, devices present and absent.
    int bits = chance(80) ? 8 << small(0, 2) : small(-1, 64);
    ChannelFormat format(bits, chance(50) ? bits : 0, 0, 0, small(-1, 4));
    body = CreateTextureLinearWidth(fbb, chance(90) ? 0 : small(-2, 4),
                                    chance(95) ? &format : nullptr)
               .Union();
    break;
  }
  case Command::ClusterOccupancy: {
    bool module = chance(30);
    uint64_t id = module ? handle(functions_)
                  : !kernels_.empty() && chance(90)
                      ? kernels_[rng_() % kernels_.size()].id
                      : rng_();
    std::vector<uint32_t> grid = {uint32_t(small(0, 64)), 1, 1};
    std::vector<uint32_t> block = {uint32_t(small(0, 2048)), 1, 1};
    std::vector<uint32_t> cluster(chance(90) ? 3 : size_t(small(0, 5)));
    for (uint32_t &c : cluster)
      c = uint32_t(chance(90) ? small(0, 16) : int32_t(rng_()));
    body = CreateClusterOccupancyDirect(fbb, id, module, chance(50), &grid,
                                        &block, uint32_t(small(0, 1 << 17)),
                                        &cluster, small(-1, 4))
               .Union();
    break;
  }
  case Command::StreamAttribute:
    body =
        CreateStreamAttribute(
            fbb, stream(), chance(80) ? small(0, 12) : int32_t(rng_()),
            address(), size(), chance(80) ? 0.5f : float(rng_()), small(-1, 3),
            small(-1, 3), small(-2, 5), uint8_t(rng_()), uint8_t(rng_()))
            .Union();
    break;
  default:
    break;
  }
  if (chance(3))
    body = 0; // the type without its table: refused by the server
  if (depth == 0)
    sent_.push_back({type, asked});
  return CreateCommandEntry(fbb, type, body);
}

std::vector<uint8_t> CommandGenerator::batch(uint64_t seq, int maxCommands) {
  Fbb fbb(1024);
  sent_.clear();
  lastSeq_ = seq;
  std::vector<Entry> cmds;
  for (int i = small(1, maxCommands); i > 0; --i)
    cmds.push_back(command(fbb, 0));
  auto b = CreateBatchDirect(fbb, seq, &cmds, !chance(20));
  FinishMessageBuffer(fbb, CreateMessage(fbb, Body::Batch, b.Union()));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

void CommandGenerator::learn(const BatchReply &reply) {
  if (reply.seq() != lastSeq_ || !reply.results())
    return;
  for (const Result *r : *reply.results()) {
    if (r->index() >= sent_.size())
      continue;
    auto [type, asked] = sent_[r->index()];
    if (type == Command::Malloc && r->addr())
      allocations_.push_back({r->addr(), asked});
    else if (type == Command::HostShare)
      regions_.push_back(r->addr());
  }
  if (allocations_.size() > 256)
    allocations_.erase(allocations_.begin(), allocations_.begin() + 128);
}

} // namespace rc::fuzz
