// The pattern of cuda-samples' systemWideAtomics: a kernel on managed
// memory, then host atomics on the same memory, then a synchronization.
// Remote GPUs offer no concurrent managed access, so the host may not touch
// managed memory before synchronizing. argv[1] says when it does:
//   race    right after the launch: the runtime must end the program
//           (SIGSEGV) with a line naming the access, never a wrong sum;
//   thread  another thread reads it while the launch is outstanding: the
//           same;
//   sync    after cudaDeviceSynchronize: every sum must be right (PASS).
// The test device runs no kernel code: a copy into the array stands in for
// the kernel's writes.
#include "checks.h"
#include "test_module.h"

#include <cuda_runtime_api.h>

#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <thread>

extern "C" cudaError_t __rc_launch_kernel(uint64_t id, dim3 grid, dim3 block,
                                          void **args, size_t shmem,
                                          cudaStream_t s);

namespace {

constexpr int kThreads = 64 * 256;
constexpr int kLoops = 10;

// atomicKernel_CPU's operations, for the host's half of the threads.
void hostAtomics(int *a) {
  for (int i = kThreads; i < 2 * kThreads; ++i)
    for (int j = 0; j < kLoops; ++j) {
      __sync_fetch_and_add(&a[0], 10);
      __sync_lock_test_and_set(&a[1], i);
      __sync_fetch_and_and(&a[7], 2 * i + 7);
      __sync_fetch_and_or(&a[8], 1 << (i % 8));
      __sync_fetch_and_xor(&a[9], i);
    }
}

} // namespace

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "sync";
  struct rlimit noCore = {0, 0};
  setrlimit(RLIMIT_CORE, &noCore); // the expected segfault leaves no core

  int concurrent = 1, pageable = 1;
  CUDA_OK(cudaDeviceGetAttribute(&concurrent,
                                 cudaDevAttrConcurrentManagedAccess, 0));
  CUDA_OK(
      cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
  CHECK(concurrent == 0);
  CHECK(pageable == 0); // so the sample takes cudaMallocManaged

  int *atom = nullptr, *dev = nullptr;
  CUDA_OK(
      cudaMallocManaged(reinterpret_cast<void **>(&atom), 10 * sizeof(int)));
  CUDA_OK(cudaMalloc(reinterpret_cast<void **>(&dev), sizeof(int)));
  int deviceValue = 1000;
  CUDA_OK(cudaMemcpy(dev, &deviceValue, sizeof deviceValue,
                     cudaMemcpyHostToDevice));
  for (int i = 0; i < 10; ++i)
    atom[i] = 0;
  atom[7] = atom[9] = 0xff;

  float *asFloats = reinterpret_cast<float *>(atom);
  int n = 10;
  float factor = 1.0f;
  void *args[] = {&asFloats, &n, &factor};
  CUDA_OK(__rc_launch_kernel(rc::test::kTestKernelId, dim3(64), dim3(256), args,
                             0, nullptr));
  CUDA_OK(cudaMemcpyAsync(&atom[2], dev, sizeof(int), cudaMemcpyDefault,
                          nullptr)); // the device's write
  std::fflush(stdout);

  if (std::strcmp(mode, "sync") == 0) {
    CUDA_OK(cudaDeviceSynchronize());
  } else if (std::strcmp(mode, "thread") == 0) {
    std::thread reader([atom] {
      volatile int seen = atom[2];
      std::printf("another thread read %d\n", seen);
    });
    reader.join();
  }
  hostAtomics(atom);
  CUDA_OK(cudaDeviceSynchronize());

  int andAll = 0xff, xorAll = 0xff;
  for (int i = kThreads; i < 2 * kThreads; ++i) {
    andAll &= 2 * i + 7;
    for (int j = 0; j < kLoops; ++j)
      xorAll ^= i;
  }
  CHECK(atom[0] == 10 * kThreads * kLoops);
  CHECK(atom[1] >= kThreads && atom[1] < 2 * kThreads);
  CHECK(atom[2] == deviceValue);
  CHECK(atom[7] == andAll);
  CHECK(atom[8] == 0xff);
  CHECK(atom[9] == xorAll);
  CUDA_OK(cudaFree(dev));
  CUDA_OK(cudaFree(atom));
  std::printf("%s: %s\n", mode, failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
