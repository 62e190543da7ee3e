// The calls docs/api-coverage.md counts as aliases and the driver calls of
// librc_cuda, through the real shared libraries (librc_cudart.so,
// librc_cuda.so) against rc-server --test-device, as a program makes
// them: the runtime's deprecated cudaThread* names, driver events,
// streams, copies, memsets, pointer queries, host memory, functions,
// occupancy and launches, arrays and texture objects, contexts, graphs and
// pools. Exits non-zero naming each failing step.
#include "driver_checks.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {
CUdeviceptr devPtr(void *p) { return CUdeviceptr(uintptr_t(p)); }

// The deprecated cudaThread* names are the cudaDevice* calls.
void threadAliases() {
  size_t value = 0;
  CUDA_OK(cudaThreadSetLimit(cudaLimitStackSize, 8192));
  CUDA_OK(cudaThreadGetLimit(&value, cudaLimitStackSize));
  CHECK(value == 8192);
  CUDA_OK(cudaDeviceGetLimit(&value, cudaLimitStackSize));
  CHECK(value == 8192);
  CUDA_OK(cudaThreadSetCacheConfig(cudaFuncCachePreferShared));
  cudaFuncCache cache = cudaFuncCachePreferNone;
  CUDA_OK(cudaThreadGetCacheConfig(&cache));
  CHECK(cache == cudaFuncCachePreferShared);
  CUDA_OK(cudaDeviceGetCacheConfig(&cache));
  CHECK(cache == cudaFuncCachePreferShared);
  void *p = nullptr;
  CUDA_OK(cudaMalloc(&p, 64));
  CUDA_OK(cudaMemsetAsync(p, 7, 64, nullptr));
  CUDA_OK(cudaThreadSynchronize());
  unsigned char back[64] = {};
  CUDA_OK(cudaMemcpy(back, p, 64, cudaMemcpyDeviceToHost));
  CHECK(back[63] == 7);
  CUDA_OK(cudaThreadExit());
  CUDA_OK(cudaMalloc(&p, 64)); // the device works after the reset
  CUDA_OK(cudaFree(p));
  std::printf("cudaThread* aliases: ok\n");
}

void eventsStreamsAndMemsets() {
  CUstream s = nullptr;
  CU_OK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -1));
  int priority = 0;
  unsigned flags = 0;
  CU_OK(cuStreamGetPriority(s, &priority));
  CU_OK(cuStreamGetFlags(s, &flags));
  CHECK(priority == -1 && flags == CU_STREAM_NON_BLOCKING);
  CUevent start = nullptr, stop = nullptr;
  CU_OK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CU_OK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  CUdeviceptr d = 0;
  const size_t n = 1000;
  CU_OK(cuMemAlloc(&d, n * 4));
  CU_OK(cuEventRecord(start, s));
  // Bytes that differ: one element, then doubled by copies.
  CU_OK(cuMemsetD32Async(d, 0x01020304u, n, s));
  CU_OK(cuEventRecord(stop, s));
  CU_OK(cuEventSynchronize(stop));
  CHECK(cuEventQuery(stop) == CUDA_SUCCESS);
  float ms = -1;
  CU_OK(cuEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0);
  std::vector<uint32_t> words(n, 0);
  CU_OK(cuMemcpyDtoH(words.data(), d, n * 4));
  size_t good = 0;
  for (uint32_t w : words)
    good += w == 0x01020304u;
  CHECK(good == n);
  CU_OK(cuMemsetD16(d, 0xabcd, 3));
  uint16_t halves[4] = {};
  CU_OK(cuMemcpyDtoH(halves, d, 8));
  CHECK(halves[0] == 0xabcd && halves[2] == 0xabcd && halves[3] == 0x0102);

  // Pitched rows: the padding keeps what it had.
  CUdeviceptr pitched = 0;
  size_t pitch = 0;
  CU_OK(cuMemAllocPitch(&pitched, &pitch, 40, 5, 4));
  CHECK(pitch >= 40);
  CU_OK(cuMemsetD8(pitched, 0xee, pitch * 5));
  CU_OK(cuMemsetD2D32(pitched, pitch, 0x11223344u, 10, 5));
  std::vector<uint8_t> rows(pitch * 5);
  CU_OK(cuMemcpyDtoH(rows.data(), pitched, rows.size()));
  uint32_t first = 0, lastOfRow = 0;
  std::memcpy(&first, &rows[4 * pitch], 4);
  std::memcpy(&lastOfRow, &rows[4 * pitch + 36], 4);
  CHECK(first == 0x11223344u && lastOfRow == 0x11223344u);
  CHECK(rows[pitch - 1] == 0xee);

  CUstream other = nullptr;
  CU_OK(cuStreamCreate(&other, 0));
  CU_OK(cuStreamWaitEvent(other, stop, 0));
  CU_OK(cuStreamQuery(other));
  static int hostCalls = 0;
  CU_OK(cuLaunchHostFunc(
      other, [](void *p) { hostCalls += *static_cast<int *>(p); }, &priority));
  CHECK(hostCalls == -1);
  static CUresult callbackStatus = CUDA_ERROR_UNKNOWN;
  CU_OK(cuStreamAddCallback(
      other, [](CUstream, CUresult st, void *) { callbackStatus = st; },
      nullptr, 0));
  CHECK(callbackStatus == CUDA_SUCCESS);
  CUcontext ctx = nullptr, current = nullptr;
  CU_OK(cuStreamGetCtx(other, &ctx));
  CU_OK(cuCtxGetCurrent(&current));
  CHECK(ctx == current);
  CU_OK(cuEventDestroy(start));
  CU_OK(cuEventDestroy(stop));
  CU_OK(cuStreamDestroy(other));
  CU_OK(cuStreamDestroy(s));
  CU_OK(cuMemFree(d));
  CU_OK(cuMemFree(pitched));
  std::printf("driver events, streams and memsets: ok\n");
}

void copiesAndPointers() {
  const size_t w = 24, h = 6, hostPitch = 32;
  std::vector<uint8_t> host(hostPitch * h), back(hostPitch * h, 0);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = uint8_t(i * 7 + 3);
  CUdeviceptr d = 0, e = 0;
  size_t pitch = 0;
  CU_OK(cuMemAllocPitch(&d, &pitch, w, h, 4));
  CU_OK(cuMemAlloc(&e, pitch * h));
  CUDA_MEMCPY2D up = {};
  up.srcMemoryType = CU_MEMORYTYPE_HOST;
  up.srcHost = host.data();
  up.srcPitch = hostPitch;
  up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  up.dstDevice = d;
  up.dstPitch = pitch;
  up.WidthInBytes = w;
  up.Height = h;
  CU_OK(cuMemcpy2D(&up));
  CU_OK(cuMemcpy(e, d, pitch * h)); // unified addressing
  CUDA_MEMCPY2D down = {};
  down.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  down.srcDevice = e;
  down.srcPitch = pitch;
  down.dstMemoryType = CU_MEMORYTYPE_HOST;
  down.dstHost = back.data();
  down.dstPitch = hostPitch;
  down.WidthInBytes = w;
  down.Height = h;
  CU_OK(cuMemcpy2DAsync(&down, nullptr));
  CU_OK(cuCtxSynchronize());
  bool same = true;
  for (size_t r = 0; r < h; ++r)
    same =
        same && std::memcmp(&back[r * hostPitch], &host[r * hostPitch], w) == 0;
  CHECK(same);

  CUdeviceptr base = 0;
  size_t size = 0;
  CU_OK(cuMemGetAddressRange(&base, &size, e + 10));
  CHECK(base == e && size == pitch * h);
  int type = 0, ordinal = -1, managed = -1;
  CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, e + 1));
  CHECK(type == CU_MEMORYTYPE_DEVICE);
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *data[] = {&ordinal, &managed};
  CU_OK(cuPointerGetAttributes(2, attrs, data, e));
  CHECK(ordinal == 0 && managed == 0);
  int local = 0;
  CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                              devPtr(&local)) == CUDA_ERROR_INVALID_VALUE);

  void *pinned = nullptr;
  unsigned flags = 0;
  CU_OK(cuMemHostAlloc(&pinned, 4096, CU_MEMHOSTALLOC_PORTABLE));
  CU_OK(cuMemHostGetFlags(&flags, pinned));
  CHECK(flags == CU_MEMHOSTALLOC_PORTABLE);
  CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                              devPtr(pinned)));
  CHECK(type == CU_MEMORYTYPE_HOST);
  CU_OK(cuMemFreeHost(pinned));
  CU_OK(cuMemAllocHost(&pinned, 128));
  CU_OK(cuMemFreeHost(pinned));
  size_t freeBytes = 0, total = 0;
  CU_OK(cuMemGetInfo(&freeBytes, &total));
  CHECK(total > 0 && freeBytes <= total);
  CU_OK(cuMemFree(d));
  CU_OK(cuMemFree(e));
  std::printf("driver copies and pointer queries: ok\n");
}

void functionsAndLaunches() {
  const void *stub = reinterpret_cast<const void *>(&scaleStub);
  cudaFunction_t byRuntime = nullptr;
  CUDA_OK(cudaGetFuncBySymbol(&byRuntime, stub));
  CUfunction f = reinterpret_cast<CUfunction>(byRuntime);
  cudaFuncAttributes a;
  CUDA_OK(cudaFuncGetAttributes(&a, stub));
  int regs = -1, maxThreads = -1;
  CU_OK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  CU_OK(cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                           f));
  CHECK(regs == a.numRegs && maxThreads == a.maxThreadsPerBlock);
  CU_OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           65536));
  int dynamic = 0;
  CU_OK(cuFuncGetAttribute(&dynamic,
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
  CHECK(dynamic == 65536);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 8) ==
        CUDA_ERROR_INVALID_VALUE);
  CU_OK(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_L1));
  const char *name = nullptr;
  CU_OK(cuFuncGetName(&name, f));
  CHECK(name && std::strcmp(name, rc::test::kTestKernelName) == 0);
  size_t offset = 0, size = 0;
  CU_OK(cuFuncGetParamInfo(f, 2, &offset, &size));
  CHECK(offset == 12 && size == 4);

  int minGrid = 0, blockSize = 0, blocks = 0, sms = 0;
  CU_OK(
      cuOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, f, nullptr, 0, 0));
  CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, blockSize, 0));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(blockSize > 0 && blockSize <= a.maxThreadsPerBlock);
  CHECK(minGrid == blocks * sms);
  std::printf("cuOccupancyMaxPotentialBlockSize: %d threads, grid %d\n",
              blockSize, minGrid);
  size_t smem = 0;
  CU_OK(cuOccupancyAvailableDynamicSMemPerBlock(&smem, f, 1, 128));
  CHECK(smem > 0);

  CUdeviceptr d = 0;
  CU_OK(cuMemAlloc(&d, 4096));
  int n = 1024;
  float factor = 2;
  void *args[] = {&d, &n, &factor};
  CU_OK(cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CU_OK(cuLaunchCooperativeKernel(f, 2, 1, 1, 128, 1, 1, 0, nullptr, args));
  CUlaunchAttribute attr = {};
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config = {};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 64;
  config.blockDimY = config.blockDimZ = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  CU_OK(cuLaunchKernelEx(&config, f, args, nullptr));
  CUDA_LAUNCH_PARAMS multi = {};
  multi.function = f;
  multi.gridDimX = multi.gridDimY = multi.gridDimZ = 1;
  multi.blockDimX = 32;
  multi.blockDimY = multi.blockDimZ = 1;
  multi.kernelParams = args;
  CU_OK(cuLaunchCooperativeKernelMultiDevice(&multi, 1, 0));
  CU_OK(cuCtxSynchronize());

  // A module's kernel: its attributes came with cuModuleGetFunction, so
  // occupancy is answered for it too (cuda-samples' driver programs).
  static const char ptx[] = ".version 8.4\n.target sm_90\n.address_size 64\n"
                            ".visible .entry twice(\n"
                            "  .param .u64 .ptr .global .align 4 p\n)\n"
                            "{\n  ret;\n}\n";
  CUmodule module = nullptr;
  CUfunction twice = nullptr;
  CU_OK(cuModuleLoadData(&module, ptx));
  CU_OK(cuModuleGetFunction(&twice, module, "twice"));
  CU_OK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, twice));
  CHECK(regs > 0);
  minGrid = blockSize = 0;
  CU_OK(cuOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, twice, nullptr,
                                         0, 0));
  CHECK(blockSize > 0 && minGrid > 0);
  CU_OK(cuFuncGetName(&name, twice));
  CHECK(name && std::strcmp(name, "twice") == 0);
  CHECK(cuFuncSetAttribute(twice,
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           1024) == CUDA_ERROR_NOT_SUPPORTED);
  void *moduleArgs[] = {&d};
  // With launch attributes: refused by name.
  CHECK(cuLaunchKernelEx(&config, twice, moduleArgs, nullptr) ==
        CUDA_ERROR_NOT_SUPPORTED);
  config.numAttrs = 0;
  CU_OK(cuLaunchKernelEx(&config, twice, moduleArgs, nullptr));
  CU_OK(cuModuleUnload(module));
  CU_OK(cuMemFree(d));
  std::printf("driver functions and launches: ok\n");
}

void arraysAndTextures() {
  CUDA_ARRAY_DESCRIPTOR desc = {};
  desc.Width = 16;
  desc.Height = 4;
  desc.Format = CU_AD_FORMAT_FLOAT;
  desc.NumChannels = 1;
  CUarray a = nullptr;
  CU_OK(cuArrayCreate(&a, &desc));
  CUDA_ARRAY_DESCRIPTOR got = {};
  CU_OK(cuArrayGetDescriptor(&got, a));
  CHECK(got.Width == 16 && got.Height == 4 &&
        got.Format == CU_AD_FORMAT_FLOAT && got.NumChannels == 1);
  std::vector<float> in(64), out(64, 0);
  for (int i = 0; i < 64; ++i)
    in[i] = float(i) + 0.5f;
  CU_OK(cuMemcpyHtoA(a, 0, in.data(), 256));
  CU_OK(cuMemcpyAtoH(out.data(), a, 64, 128)); // rows 1 and 2 of 64 bytes
  CHECK(out[0] == in[16] && out[31] == in[47]);

  CUDA_ARRAY3D_DESCRIPTOR d3 = {};
  d3.Width = 16;
  d3.Height = 4;
  d3.Depth = 2;
  d3.Format = CU_AD_FORMAT_FLOAT;
  d3.NumChannels = 1;
  d3.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  CUarray volume = nullptr;
  CU_OK(cuArray3DCreate(&volume, &d3));
  CUDA_ARRAY3D_DESCRIPTOR got3 = {};
  CU_OK(cuArray3DGetDescriptor(&got3, volume));
  CHECK(got3.Depth == 2 && got3.Flags == CUDA_ARRAY3D_SURFACE_LDST);
  CUDA_MEMCPY3D copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  copy.srcArray = a;
  copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  copy.dstArray = volume;
  copy.dstZ = 1;
  copy.WidthInBytes = 64;
  copy.Height = 4;
  copy.Depth = 1;
  CU_OK(cuMemcpy3D(&copy));
  copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  copy.srcArray = volume;
  copy.srcZ = 1;
  copy.dstMemoryType = CU_MEMORYTYPE_HOST;
  copy.dstHost = out.data();
  copy.dstPitch = 64;
  copy.dstHeight = 4;
  copy.WidthInBytes = 64;
  copy.Height = 4;
  copy.Depth = 1;
  std::fill(out.begin(), out.end(), 0.0f);
  CU_OK(cuMemcpy3D(&copy));
  CHECK(out == in);

  desc.Format = CU_AD_FORMAT_UNORM_INT8X1;
  CUarray refused = nullptr;
  CHECK(cuArrayCreate(&refused, &desc) == CUDA_ERROR_NOT_SUPPORTED);

  CUDA_RESOURCE_DESC res = {};
  res.resType = CU_RESOURCE_TYPE_ARRAY;
  res.res.array.hArray = a;
  CUDA_TEXTURE_DESC tex = {};
  tex.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
  tex.filterMode = CU_TR_FILTER_MODE_LINEAR;
  tex.flags = CU_TRSF_NORMALIZED_COORDINATES;
  CUtexObject t = 0;
  CU_OK(cuTexObjectCreate(&t, &res, &tex, nullptr));
  CUDA_TEXTURE_DESC texBack = {};
  CU_OK(cuTexObjectGetTextureDesc(&texBack, t));
  CHECK((texBack.flags & CU_TRSF_NORMALIZED_COORDINATES) &&
        texBack.filterMode == CU_TR_FILTER_MODE_LINEAR &&
        texBack.addressMode[0] == CU_TR_ADDRESS_MODE_CLAMP);
  CUDA_RESOURCE_DESC resBack = {};
  CU_OK(cuTexObjectGetResourceDesc(&resBack, t));
  CHECK(resBack.resType == CU_RESOURCE_TYPE_ARRAY &&
        resBack.res.array.hArray == a);
  CUDA_RESOURCE_VIEW_DESC view;
  CHECK(cuTexObjectGetResourceViewDesc(&view, t) == CUDA_ERROR_INVALID_VALUE);
  res.res.array.hArray = volume;
  CUsurfObject surface = 0;
  CU_OK(cuSurfObjectCreate(&surface, &res));
  CU_OK(cuSurfObjectGetResourceDesc(&resBack, surface));
  CHECK(resBack.res.array.hArray == volume);
  CU_OK(cuTexObjectDestroy(t));
  CU_OK(cuSurfObjectDestroy(surface));
  CU_OK(cuArrayDestroy(a));
  CU_OK(cuArrayDestroy(volume));
  std::printf("driver arrays and texture objects: ok\n");
}

void contextsAndDevices() {
  CUdevice dev = 0;
  CU_OK(cuDeviceGet(&dev, 0));
  CUcontext ctx = nullptr;
  CU_OK(cuCtxGetCurrent(&ctx));
  unsigned version = 0;
  CU_OK(cuCtxGetApiVersion(ctx, &version));
  CHECK(version == 3020);
  unsigned long long id = 0;
  CU_OK(cuCtxGetId(nullptr, &id));
  CHECK(id != 0);
  CU_OK(cuCtxSetFlags(CU_CTX_SCHED_YIELD));
  unsigned flags = 0;
  CU_OK(cuCtxGetFlags(&flags));
  CHECK(flags == CU_CTX_SCHED_YIELD);
  int active = 0;
  CU_OK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
  CHECK(active == 1 && flags == CU_CTX_SCHED_YIELD);
  int least = 9, greatest = 9;
  CU_OK(cuCtxGetStreamPriorityRange(&least, &greatest));
  CHECK(least == 0 && greatest < 0);
  CU_OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_EQUAL));
  CUfunc_cache cache = CU_FUNC_CACHE_PREFER_NONE;
  CU_OK(cuCtxGetCacheConfig(&cache));
  CHECK(cache == CU_FUNC_CACHE_PREFER_EQUAL);
  CUuuid uuid = {};
  cudaDeviceProp p;
  CU_OK(cuDeviceGetUuid(&uuid, dev));
  CUDA_OK(cudaGetDeviceProperties(&p, 0));
  CHECK(std::memcmp(uuid.bytes, p.uuid.bytes, 16) == 0);
  CUdevprop old = {};
  CU_OK(cuDeviceGetProperties(&old, dev));
  CHECK(old.maxThreadsPerBlock == p.maxThreadsPerBlock &&
        old.SIMDWidth == p.warpSize);
  char bus[32] = {};
  CU_OK(cuDeviceGetPCIBusId(bus, sizeof bus, dev));
  CUdevice found = -1;
  CU_OK(cuDeviceGetByPCIBusId(&found, bus));
  CHECK(found == dev);
  std::printf("driver contexts and devices: ok\n");
}

void graphsAndPools() {
  const void *stub = reinterpret_cast<const void *>(&scaleStub);
  CUdeviceptr d = 0;
  CU_OK(cuMemAlloc(&d, 256));
  CUgraph g = nullptr;
  CU_OK(cuGraphCreate(&g, 0));
  int n = 64;
  float factor = 3;
  void *args[] = {&d, &n, &factor};
  CUDA_KERNEL_NODE_PARAMS k = {};
  cudaFunction_t f = nullptr;
  CUDA_OK(cudaGetFuncBySymbol(&f, stub));
  k.func = reinterpret_cast<CUfunction>(f);
  k.gridDimX = k.gridDimY = k.gridDimZ = 1;
  k.blockDimX = 64;
  k.blockDimY = k.blockDimZ = 1;
  k.kernelParams = args;
  CUgraphNode kernel = nullptr, set = nullptr, copy = nullptr;
  CU_OK(cuGraphAddKernelNode(&kernel, g, nullptr, 0, &k));
  CUDA_KERNEL_NODE_PARAMS back = {};
  CU_OK(cuGraphKernelNodeGetParams(kernel, &back));
  CHECK(back.func == k.func && back.blockDimX == 64);
  CUDA_MEMSET_NODE_PARAMS m = {};
  m.dst = d;
  m.value = 0x5a;
  m.elementSize = 1;
  m.width = 128;
  m.height = 1;
  CUcontext ctx = nullptr;
  CU_OK(cuCtxGetCurrent(&ctx));
  CU_OK(cuGraphAddMemsetNode(&set, g, &kernel, 1, &m, ctx));
  std::vector<uint8_t> host(128, 0x33), out(256, 0);
  CUgraphNodeParams generic = {};
  generic.type = CU_GRAPH_NODE_TYPE_MEMCPY;
  generic.memcpy.copyCtx = ctx;
  generic.memcpy.copyParams.srcMemoryType = CU_MEMORYTYPE_HOST;
  generic.memcpy.copyParams.srcHost = host.data();
  generic.memcpy.copyParams.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  generic.memcpy.copyParams.dstDevice = d + 128;
  generic.memcpy.copyParams.WidthInBytes = 128;
  generic.memcpy.copyParams.Height = 1;
  generic.memcpy.copyParams.Depth = 1;
  CU_OK(cuGraphAddNode(&copy, g, &set, 1, &generic));
  CUDA_MEMCPY3D copyBack = {};
  CU_OK(cuGraphMemcpyNodeGetParams(copy, &copyBack));
  CHECK(copyBack.srcHost == host.data() && copyBack.dstDevice == d + 128 &&
        copyBack.WidthInBytes == 128);
  size_t edges = 0;
  CU_OK(cuGraphGetEdges(g, nullptr, nullptr, &edges));
  CHECK(edges == 2);
  CUgraphExec exec = nullptr;
  CU_OK(cuGraphInstantiateWithFlags(&exec, g, 0));
  CU_OK(cuGraphLaunch(exec, nullptr));
  CU_OK(cuMemcpyDtoH(out.data(), d, 256));
  CHECK(out[0] == 0x5a && out[127] == 0x5a && out[128] == 0x33 &&
        out[255] == 0x33);
  CU_OK(cuGraphExecDestroy(exec));
  CU_OK(cuGraphDestroy(g));

  CUstream s = nullptr;
  CU_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CU_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CU_OK(cuMemsetD8Async(d, 1, 16, s));
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t captureId = 0;
  const CUgraphNode *deps = nullptr;
  size_t count = 0;
  CU_OK(cuStreamGetCaptureInfo(s, &status, &captureId, nullptr, &deps, &count));
  CHECK(status == CU_STREAM_CAPTURE_STATUS_ACTIVE && count == 1);
  CU_OK(cuStreamEndCapture(s, &g));
  CU_OK(cuGraphDestroy(g));

  CUmemoryPool pool = nullptr;
  CU_OK(cuDeviceGetDefaultMemPool(&pool, 0));
  CUdeviceptr fromPool = 0;
  CU_OK(cuMemAllocFromPoolAsync(&fromPool, 1 << 16, pool, s));
  cuuint64_t used = 0;
  CU_OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  CHECK(used == (1 << 16));
  CU_OK(cuMemFreeAsync(fromPool, s));
  CU_OK(cuStreamSynchronize(s));
  CU_OK(cuStreamDestroy(s));
  CU_OK(cuMemFree(d));
  std::printf("driver graphs and pools: ok\n");
}

} // namespace

int main() {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  if (count < 1)
    return 2;
  CU_OK(cuInit(0));
  threadAliases();
  eventsStreamsAndMemsets();
  copiesAndPointers();
  functionsAndLaunches();
  arraysAndTextures();
  contextsAndDevices();
  graphsAndPools();
  // Still refused, by name: texture references are gone in CUDA 12.
  CUtexref ref = nullptr;
  CHECK(cuTexRefCreate(&ref) == CUDA_ERROR_NOT_SUPPORTED);
  if (failures) {
    std::printf("FAILED: %d step(s)\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
