// A plain C++ program against the CUDA runtime API, linked to
// librc_cudart.so and run against rc-server --test-device by the
// integration test. It checks every result itself and exits non-zero with a
// message naming the failing step.
#include "checks.h"
#include "test_module.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int,
                            uint3 *, uint3 *, dim3 *, dim3 *, int *);
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int,
                       int);
cudaError_t __rc_launch_kernel(uint64_t id, dim3 grid, dim3 block, void **args,
                               size_t shmem, cudaStream_t s);
}

namespace {

void scaleStub() {}     // stands in for clang's host stub
float coeffsShadow[16]; // host shadow of a __device__ float[16]

// What clang's module constructor does before main.
struct Registration {
  Registration() {
    static struct {
      int magic, version;
      const void *data;
      void *unused;
    } wrapper = {int(0x466243B1), 1, rc::test::kTestFatbin, nullptr};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, reinterpret_cast<const char *>(&scaleStub),
                           nullptr, rc::test::kTestKernelName, -1, nullptr,
                           nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterVar(h, reinterpret_cast<char *>(coeffsShadow), nullptr,
                      rc::test::kTestVarName, 0, sizeof coeffsShadow, 0, 0);
  }
} registration;
} // namespace

int main() {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  CHECK(count >= 1);
  if (count < 1)
    return 2;
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %zu MiB\n", prop.name, prop.totalGlobalMem >> 20);
  CUDA_OK(cudaSetDevice(0));

  // Synchronous copies in every direction.
  const size_t n = 1 << 16;
  std::vector<int> host(n), back(n, -1);
  for (size_t i = 0; i < n; ++i)
    host[i] = int(i * 7 + 1);
  int *a = nullptr, *b = nullptr;
  CUDA_OK(cudaMalloc((void **)&a, n * sizeof(int)));
  CUDA_OK(cudaMalloc((void **)&b, n * sizeof(int)));
  CUDA_OK(cudaMemcpy(a, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice));
  CUDA_OK(cudaMemcpy(back.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(back == host);
  std::vector<int> viaDefault(n, 0);
  CUDA_OK(cudaMemcpy(viaDefault.data(), a, n * sizeof(int), cudaMemcpyDefault));
  CHECK(viaDefault == host);

  // Memset.
  CUDA_OK(cudaMemset(b, 0x7f, 1000));
  std::vector<unsigned char> bytes(1000);
  CUDA_OK(cudaMemcpy(bytes.data(), b, 1000, cudaMemcpyDeviceToHost));
  CHECK(bytes == std::vector<unsigned char>(1000, 0x7f));

  // Large (chunked) copies: 10 MiB each way.
  const size_t big = 10u << 20;
  std::vector<unsigned char> bigIn(big), bigOut(big);
  for (size_t i = 0; i < big; ++i)
    bigIn[i] = (unsigned char)(i * 131 + (i >> 12));
  void *dbig = nullptr;
  CUDA_OK(cudaMalloc(&dbig, big));
  CUDA_OK(cudaMemcpy(dbig, bigIn.data(), big, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(bigOut.data(), dbig, big, cudaMemcpyDeviceToHost));
  CHECK(bigIn == bigOut);

  // Streams + events: async copies, a launch by ID and one by stub pointer.
  cudaStream_t s1, s2;
  CUDA_OK(cudaStreamCreate(&s1));
  CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  float *pinned = nullptr;
  CUDA_OK(cudaMallocHost(reinterpret_cast<void **>(&pinned), 4096));
  for (int i = 0; i < 1024; ++i)
    pinned[i] = float(i);
  CUDA_OK(cudaEventRecord(start, s1));
  CUDA_OK(cudaMemcpyAsync(a, pinned, 4096, cudaMemcpyHostToDevice, s1));
  float *fa = reinterpret_cast<float *>(a);
  int nn = 1024;
  float factor = 2.0f;
  void *args[] = {&fa, &nn, &factor};
  CUDA_OK(__rc_launch_kernel(rc::test::kTestKernelId, dim3(4), dim3(256), args,
                             0, s1));
  CUDA_OK(cudaLaunchKernel(reinterpret_cast<const void *>(&scaleStub), dim3(4),
                           dim3(256), args, 0, s1));
  CUDA_OK(cudaEventRecord(stop, s1));
  CUDA_OK(cudaStreamWaitEvent(s2, stop, 0));
  std::vector<float> out(1024, -1);
  CUDA_OK(cudaMemcpyAsync(out.data(), a, 4096, cudaMemcpyDeviceToHost, s2));
  CUDA_OK(cudaStreamSynchronize(s2));
  // The test device records launches without running them.
  for (int i = 0; i < 1024; ++i)
    if (out[i] != float(i)) {
      CHECK(out[i] == float(i));
      break;
    }
  CUDA_OK(cudaEventSynchronize(stop));
  CHECK(cudaEventQuery(stop) == cudaSuccess);
  CHECK(cudaStreamQuery(s1) == cudaSuccess);
  float ms = -1;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0);

  // Per-thread default stream.
  CUDA_OK(cudaMemsetAsync(b, 1, 64, cudaStreamPerThread));
  CUDA_OK(cudaStreamSynchronize(cudaStreamPerThread));

  // Symbols.
  float coeffs[16], got[16] = {};
  for (int i = 0; i < 16; ++i)
    coeffs[i] = 0.5f * i;
  CUDA_OK(cudaMemcpyToSymbol(coeffsShadow, coeffs, sizeof coeffs));
  CUDA_OK(cudaMemcpyFromSymbol(got, coeffsShadow, 8 * sizeof(float),
                               8 * sizeof(float)));
  CHECK(std::memcmp(got, coeffs + 8, 8 * sizeof(float)) == 0);
  void *symAddr = nullptr;
  CUDA_OK(cudaGetSymbolAddress(&symAddr, coeffsShadow));
  CHECK(symAddr != nullptr);
  size_t symSize = 0;
  CUDA_OK(cudaGetSymbolSize(&symSize, coeffsShadow));
  CHECK(symSize == rc::test::kTestVarSize);

  // Host-side errors at the call.
  CHECK(cudaLaunchKernel(reinterpret_cast<const void *>(&scaleStub), dim3(1),
                         dim3(4096), args, 0,
                         nullptr) == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);

  CUDA_OK(cudaStreamDestroy(s1));
  CUDA_OK(cudaStreamDestroy(s2));
  CUDA_OK(cudaEventDestroy(start));
  CUDA_OK(cudaEventDestroy(stop));
  CUDA_OK(cudaFreeHost(pinned));
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  CUDA_OK(cudaFree(dbig));
  CUDA_OK(cudaDeviceSynchronize());
  if (failures) {
    std::printf("FAILED: %d checks\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
