// ggml-cuda's runtime + driver surface beyond the basics, through the real
// shared libraries (librc_cudart.so, librc_cuda.so) against rc-server
// --test-device: function attributes and occupancy by stub, cooperative and
// PDL launches, 2D / peer copies, peer queries, PCI bus ID, host
// registration and host functions, and the VMM pool exactly as
// ggml_cuda_pool_vmm drives it. Exits non-zero naming each failing step.
#include "driver_checks.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {
int hostFnCalls = 0;
void hostFn(void *p) { hostFnCalls += *static_cast<int *>(p); }
} // namespace

int main() {
  const void *stub = reinterpret_cast<const void *>(&scaleStub);
  // Without a server every call below fails, and the pointer arithmetic on
  // their results would make host copies of wild addresses.
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  if (count < 1)
    return 2;
  CUDA_OK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));

  // Function attributes and occupancy: local answers.
  cudaFuncAttributes fa;
  CUDA_OK(cudaFuncGetAttributes(&fa, stub));
  CHECK(fa.ptxVersion >= 90 && fa.maxThreadsPerBlock == 1024);
  CUDA_OK(cudaFuncSetAttribute(
      stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
  int blocks = -1;
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stub, 256,
                                                        96 * 1024));
  CHECK(blocks == 2); // (96 + 1) KiB per block in 228 KiB
  std::printf("occupancy: %d blocks of 256 threads with 96 KiB\n", blocks);

  // Cooperative and PDL launches.
  float *d = nullptr;
  CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&d), 1 << 16));
  int n = 1024;
  float f = 2.0f;
  void *args[] = {&d, &n, &f};
  CUDA_OK(
      cudaLaunchCooperativeKernel(stub, dim3(4), dim3(256), args, 0, nullptr));
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(4);
  cfg.blockDim = dim3(256);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CUDA_OK(cudaLaunchKernelExC(&cfg, stub, args));

  // 2D copies in every direction ggml uses, and a peer copy.
  const size_t w = 24, h = 7, hp = 32, dp = 64;
  std::vector<unsigned char> host(hp * h), back(hp * h, 0);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = (unsigned char)(i * 3 + 1);
  unsigned char *t = nullptr, *t2 = nullptr;
  CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&t), dp * h));
  CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&t2), dp * h));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_OK(cudaMemcpy2DAsync(t, dp, host.data(), hp, w, h,
                            cudaMemcpyHostToDevice, s));
  CUDA_OK(cudaMemcpyPeerAsync(t2, 0, t, 0, dp * h, s));
  CUDA_OK(cudaMemcpy2DAsync(back.data(), hp, t2, dp, w, h,
                            cudaMemcpyDeviceToHost, s));
  int add = 5;
  CUDA_OK(cudaLaunchHostFunc(s, hostFn, &add));
  CHECK(hostFnCalls == 5);
  for (size_t r = 0; r < h; ++r)
    CHECK(std::memcmp(&back[r * hp], &host[r * hp], w) == 0);

  // Peers, PCI bus ID, host registration.
  int can = -1;
  CUDA_OK(cudaDeviceCanAccessPeer(&can, 0, 0));
  CHECK(can == 0);
  CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  char bus[32] = {};
  CUDA_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  CHECK(std::strlen(bus) == 12 && bus[4] == ':' && bus[10] == '.');
  std::printf("pci bus id: %s\n", bus);
  std::vector<char> buffer(1 << 16);
  CUDA_OK(
      cudaHostRegister(buffer.data(), buffer.size(),
                       cudaHostRegisterPortable | cudaHostRegisterReadOnly));
  CUDA_OK(cudaHostUnregister(buffer.data()));

  // The VMM pool as ggml_cuda_pool_vmm drives it.
  CUdevice dev;
  CU_OK(cuDeviceGet(&dev, 0));
  int vmm = 0;
  CU_OK(cuDeviceGetAttribute(
      &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
  CHECK(vmm == 1);
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  CU_OK(cuMemGetAllocationGranularity(&gran, &prop,
                                      CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  CHECK(gran == (2u << 20));
  const size_t maxSize = size_t(1) << 35; // CUDA_POOL_VMM_MAX_SIZE
  CUdeviceptr pool = 0;
  size_t poolSize = 0;
  for (int grow = 0; grow < 2; ++grow) {
    CUmemGenericAllocationHandle handle;
    CU_OK(cuMemCreate(&handle, gran, &prop, 0));
    CUmemAllocationProp made = {};
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&made, handle));
    CHECK(made.location.id == dev && made.allocFlags.compressionType == 0);
    if (!pool)
      CU_OK(cuMemAddressReserve(&pool, maxSize, 0, 0, 0));
    CUdeviceptr start = pool + poolSize;
    CU_OK(cuMemMap(start, gran, 0, handle, 0));
    CU_OK(cuMemRelease(handle));
    CUmemAccessDesc access = {};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = dev;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_OK(cuMemSetAccess(start, gran, &access, 1));
    poolSize += gran;
  }
  // A tensor straddling the two chunks: copies and a launch use it.
  float *tensor = reinterpret_cast<float *>(pool + gran - 2048);
  std::vector<float> in(1024), out(1024, -1);
  for (int i = 0; i < 1024; ++i)
    in[i] = float(i);
  CUDA_OK(cudaMemcpyAsync(tensor, in.data(), 4096, cudaMemcpyHostToDevice, s));
  void *poolArgs[] = {&tensor, &n, &f};
  CUDA_OK(cudaLaunchKernel(stub, dim3(4), dim3(256), poolArgs, 0, s));
  CUDA_OK(cudaMemcpyAsync(out.data(), tensor, 4096, cudaMemcpyDefault, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(out == in); // the test device records launches without running them
  CU_OK(cuMemUnmap(pool, poolSize));
  CU_OK(cuMemAddressFree(pool, maxSize));
  CUDA_OK(cudaDeviceSynchronize());
  const char *text = nullptr;
  CU_OK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &text));
  CHECK(text && std::strcmp(text, "out of memory") == 0);

  // Driver-API initialization and device queries (deviceQueryDrv).
  CU_OK(cuInit(0));
  CHECK(cuInit(1) == CUDA_ERROR_INVALID_VALUE);
  int cuCount = 0, major = 0, minor = 0;
  CU_OK(cuDeviceGetCount(&cuCount));
  CHECK(cuCount >= 1);
  char cuName[256] = {};
  CU_OK(cuDeviceGetName(cuName, sizeof cuName, 0));
  cudaDeviceProp rtProps;
  CUDA_OK(cudaGetDeviceProperties(&rtProps, 0));
  CHECK(std::strcmp(cuName, rtProps.name) == 0);
  size_t cuTotal = 0;
  CU_OK(cuDeviceTotalMem(&cuTotal, 0));
  CHECK(cuTotal == rtProps.totalGlobalMem);
  // Deprecated in cuda.h, still called by deviceQueryDrv-era programs.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  CU_OK(cuDeviceComputeCapability(&major, &minor, 0));
#pragma GCC diagnostic pop
  CHECK(major == rtProps.major && minor == rtProps.minor);
  CHECK(cuDeviceGetName(cuName, sizeof cuName, cuCount) ==
        CUDA_ERROR_INVALID_DEVICE);
  CUdevice ctxDevice = -1;
  CU_OK(cuCtxGetDevice(&ctxDevice));
  CHECK(ctxDevice == 0);
  const char *errName = nullptr;
  CU_OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &errName));
  CHECK(errName && std::strcmp(errName, "CUDA_ERROR_INVALID_VALUE") == 0);
  CU_OK(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &errName));
  CHECK(errName && std::strcmp(errName, "CUDA_ERROR_OUT_OF_MEMORY") == 0);
  CU_OK(cuGetErrorName(CUDA_ERROR_INVALID_DEVICE, &errName));
  CHECK(errName && std::strcmp(errName, "CUDA_ERROR_INVALID_DEVICE") == 0);
  CHECK(cuGetErrorName(CUresult(123456), &errName) == CUDA_ERROR_INVALID_VALUE);

  // Stream-ordered allocation and the default pool (streamOrderedAllocation).
  cudaMemPool_t memPool = nullptr, current = nullptr;
  CUDA_OK(cudaDeviceGetDefaultMemPool(&memPool, 0));
  CUDA_OK(cudaDeviceGetMemPool(&current, 0));
  CHECK(memPool && memPool == current);
  uint64_t threshold = UINT64_MAX, readBack = 0;
  CUDA_OK(cudaMemPoolSetAttribute(memPool, cudaMemPoolAttrReleaseThreshold,
                                  &threshold));
  CUDA_OK(cudaMemPoolGetAttribute(memPool, cudaMemPoolAttrReleaseThreshold,
                                  &readBack));
  CHECK(readBack == UINT64_MAX);
  float *async = nullptr, *fromPool = nullptr;
  CUDA_OK(cudaMallocAsync(reinterpret_cast<void **>(&async), 4096, s));
  CUDA_OK(cudaMallocFromPoolAsync(reinterpret_cast<void **>(&fromPool), 4096,
                                  memPool, s));
  CUDA_OK(cudaMemcpyAsync(async, in.data(), 4096, cudaMemcpyHostToDevice, s));
  CUDA_OK(cudaMemcpyAsync(fromPool, async, 4096, cudaMemcpyDeviceToDevice, s));
  std::vector<float> pooled(1024, -1);
  CUDA_OK(cudaMemcpyAsync(pooled.data(), fromPool, 4096, cudaMemcpyDefault, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(pooled == in);
  uint64_t used = 0;
  CUDA_OK(
      cudaMemPoolGetAttribute(memPool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK(used >= 8192);
  CUDA_OK(cudaFreeAsync(async, s));
  CUDA_OK(cudaFreeAsync(fromPool, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolSetAttribute(reinterpret_cast<cudaMemPool_t>(&threshold),
                                cudaMemPoolAttrReleaseThreshold,
                                &threshold) == cudaErrorInvalidValue);

  // Managed memory in a process of its own (the server's test device
  // addresses are free here for the host mirror): host writes reach the
  // device, the device's reach the host at a synchronization.
  unsigned char *managed = nullptr;
  CUDA_OK(cudaMallocManaged(reinterpret_cast<void **>(&managed), 10000,
                            cudaMemAttachGlobal));
  for (int i = 0; i < 10000; ++i)
    managed[i] = static_cast<unsigned char>(i);
  unsigned char seen[10000] = {};
  CUDA_OK(cudaMemcpy(seen, managed, sizeof seen, cudaMemcpyDefault));
  CHECK(seen[9999] == static_cast<unsigned char>(9999) && seen[1] == 1);
  CUDA_OK(cudaMemsetAsync(managed + 5000, 7, 10, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(managed[5009] == 7 &&
        managed[5010] == static_cast<unsigned char>(5010));
  CUDA_OK(cudaFree(managed));

  CUDA_OK(cudaStreamDestroy(s));
  if (failures) {
    std::printf("FAILED: %d checks\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
