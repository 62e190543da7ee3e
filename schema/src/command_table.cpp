#include "rc/command_table.h"

#include <iterator>

namespace rc::wire {

namespace {

template <class T> uint64_t streamField(const CommandEntry &e) {
  return e.cmd_as<T>()->stream();
}

constexpr auto kNone = GpuWork::None;
constexpr auto kOnStream = GpuWork::OnStream;
constexpr auto kUntracked = GpuWork::Untracked;

// One row per command, in schema order. Columns: type, api, stream,
// GPU work, graph node, client device work.
// StreamQuery, StreamWaitEvent and the symbol copies name a stream but
// observe host order (they are not stream-ordered here): a query must see
// the deferred syncs done, and a wait or a symbol copy is untracked work.
constexpr CommandInfo kCommands[] = {
    {Command::Malloc, "cudaMalloc", nullptr, kNone, false, false},
    {Command::Free, "cudaFree", nullptr, kNone, false, false},
    {Command::MemcpyH2D, "cudaMemcpyAsync (host to device)",
     &streamField<MemcpyH2D>, kOnStream, false, false},
    {Command::MemcpyD2H, "cudaMemcpyAsync (device to host)",
     &streamField<MemcpyD2H>, kOnStream, false, true},
    {Command::MemcpyD2D, "cudaMemcpyAsync (device to device)",
     &streamField<MemcpyD2D>, kOnStream, true, true},
    {Command::Memset, "cudaMemsetAsync", &streamField<Memset>, kOnStream, true,
     true},
    {Command::Launch, "kernel launch", &streamField<Launch>, kOnStream, true,
     true},
    {Command::StreamCreate, "cudaStreamCreate", nullptr, kNone, false, true},
    {Command::StreamDestroy, "cudaStreamDestroy", nullptr, kNone, false, true},
    // Stream-ordered, but a sync enqueues nothing: rc-server defers it.
    {Command::StreamSynchronize, "cudaStreamSynchronize",
     &streamField<StreamSynchronize>, kNone, false, false},
    {Command::StreamQuery, "cudaStreamQuery", nullptr, kNone, false, true},
    {Command::DeviceSynchronize, "cudaDeviceSynchronize", nullptr, kNone, false,
     false},
    {Command::EventCreate, "cudaEventCreate", nullptr, kNone, false, true},
    {Command::EventDestroy, "cudaEventDestroy", nullptr, kNone, false, true},
    {Command::EventRecord, "cudaEventRecord", &streamField<EventRecord>,
     kOnStream, false, true},
    {Command::EventSynchronize, "cudaEventSynchronize", nullptr, kNone, false,
     true},
    {Command::EventQuery, "cudaEventQuery", nullptr, kNone, false, true},
    {Command::EventElapsedTime, "cudaEventElapsedTime", nullptr, kNone, false,
     true},
    {Command::StreamWaitEvent, "cudaStreamWaitEvent", nullptr, kUntracked,
     false, true},
    {Command::SymbolWrite, "cudaMemcpyToSymbolAsync", nullptr, kUntracked,
     false, true},
    {Command::SymbolRead, "cudaMemcpyFromSymbolAsync", nullptr, kUntracked,
     false, true},
    {Command::SymbolAddress, "cudaGetSymbolAddress", nullptr, kNone, false,
     true},
    {Command::SetDevice, "cudaSetDevice", nullptr, kNone, false, true},
    {Command::Goodbye, "Goodbye", nullptr, kNone, false, true},
    {Command::FuncSetAttribute, "cudaFuncSetAttribute", nullptr, kNone, false,
     true},
    {Command::MemAddressReserve, "cuMemAddressReserve", nullptr, kNone, false,
     true},
    {Command::MemAddressFree, "cuMemAddressFree", nullptr, kNone, false, true},
    {Command::MemCreate, "cuMemCreate", nullptr, kNone, false, true},
    {Command::MemRelease, "cuMemRelease", nullptr, kNone, false, true},
    {Command::MemMap, "cuMemMap", nullptr, kNone, false, true},
    {Command::MemUnmap, "cuMemUnmap", nullptr, kNone, false, true},
    {Command::MemSetAccess, "cuMemSetAccess", nullptr, kNone, false, true},
    {Command::GraphInstantiate, "cudaGraphInstantiate", nullptr, kNone, false,
     true},
    {Command::GraphExecUpdate, "cudaGraphExecUpdate", nullptr, kNone, false,
     true},
    {Command::GraphLaunch, "cudaGraphLaunch", &streamField<GraphLaunch>,
     kOnStream, false, true},
    {Command::GraphExecDestroy, "cudaGraphExecDestroy", nullptr, kNone, false,
     true},
    {Command::CublasCreate, "cublasCreate_v2", nullptr, kNone, false, true},
    {Command::CublasDestroy, "cublasDestroy_v2", nullptr, kNone, false, true},
    {Command::CublasSetWorkspace, "cublasSetWorkspace_v2", nullptr, kNone,
     false, true},
    // Untracked: cuBLAS may run on streams of its own.
    {Command::CublasGemm, "cuBLAS GEMM", nullptr, kUntracked, true, true},
    {Command::CublasTrsmBatched, "cublasStrsmBatched", nullptr, kUntracked,
     false, true},
    {Command::PeerAccess, "cudaDeviceEnablePeerAccess", nullptr, kNone, false,
     true},
    {Command::MemcpyH2DRing, "cudaMemcpyAsync (host to device, upload ring)",
     &streamField<MemcpyH2DRing>, kOnStream, false, false},
    {Command::HostShare, "cudaMallocHost (memory shared with the server)",
     nullptr, kNone, false, true},
    {Command::HostUnshare, "cudaFreeHost (memory shared with the server)",
     nullptr, kNone, false, true},
    {Command::ProfilerControl, "cudaProfilerStart", nullptr, kNone, false,
     true},
    {Command::DeviceLimit, "cudaDeviceSetLimit", nullptr, kNone, false, true},
    {Command::ArrayCreate, "cudaMallocArray", nullptr, kNone, false, false},
    {Command::ArrayDestroy, "cudaFreeArray", nullptr, kNone, false, true},
    // The server ends an array copy before it answers (its host side is the
    // message): host order, and work no stream's bookkeeping sees.
    {Command::ArrayCopy, "cudaMemcpy2DToArray", nullptr, kUntracked, false,
     true},
    {Command::TextureCreate, "cudaCreateTextureObject", nullptr, kNone, false,
     true},
    {Command::TextureDestroy, "cudaDestroyTextureObject", nullptr, kNone, false,
     true},
    {Command::StreamAttribute, "cudaStreamSetAttribute", nullptr, kNone, false,
     true},
    {Command::ResetPersistingL2, "cudaCtxResetPersistingL2Cache", nullptr,
     kNone, false, true},
    // Untracked, as the other cuBLAS calls.
    {Command::CublasLuBatched, "cublasDgetrfBatched", nullptr, kUntracked,
     false, true},
    {Command::ModuleLoad, "cuModuleLoadData", nullptr, kNone, false, false},
    {Command::ModuleUnload, "cuModuleUnload", nullptr, kNone, false, true},
    {Command::ModuleFunction, "cuModuleGetFunction", nullptr, kNone, false,
     false},
    {Command::LaunchFunction, "cuLaunchKernel", &streamField<LaunchFunction>,
     kOnStream, false, true},
    // A library works on the stream its object was given (curandSetStream),
    // which the bookkeeping does not follow: untracked, as cuBLAS.
    {Command::LibCall, "vendor library call", nullptr, kUntracked, true, true},
    // The content cache's: an upload named by hashes, the insertion of an
    // upload's chunk (a read of the device in stream order), rc-cache.
    {Command::MemcpyH2DCached, "cudaMemcpyAsync (host to device, cached)",
     &streamField<MemcpyH2DCached>, kOnStream, false, false},
    {Command::CacheInsert, "cudaMemcpyAsync (host to device, into the cache)",
     &streamField<CacheInsert>, kOnStream, false, false},
    {Command::CacheControl, "rc-cache", nullptr, kNone, false, false},
    {Command::FunctionAttributes, "cuFuncGetAttribute", nullptr, kNone, false,
     false},
    // Questions for the driver: they read nothing the GPU computes.
    {Command::TextureLinearWidth, "cudaDeviceGetTexture1DLinearMaxWidth",
     nullptr, kNone, false, false},
    {Command::ClusterOccupancy, "cudaOccupancyMaxActiveClusters", nullptr,
     kNone, false, false},
};

constexpr bool inSchemaOrder() {
  for (size_t i = 0; i < std::size(kCommands); ++i)
    if (static_cast<size_t>(kCommands[i].type) != i + 1)
      return false;
  return true;
}
static_assert(std::size(kCommands) == static_cast<size_t>(Command::MAX),
              "every command in protocol.fbs needs its row here");
static_assert(inSchemaOrder(), "rows are in protocol.fbs order");

} // namespace

const CommandInfo *commandInfo(Command type) {
  size_t i = static_cast<size_t>(type);
  if (i == 0 || i > std::size(kCommands))
    return nullptr;
  return &kCommands[i - 1];
}

bool commandStream(const CommandEntry &entry, uint64_t *stream) {
  const CommandInfo *info = commandInfo(entry.cmd_type());
  if (!info || !info->stream)
    return false;
  *stream = info->stream(entry);
  return true;
}

} // namespace rc::wire
