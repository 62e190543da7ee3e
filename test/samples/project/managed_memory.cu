// Managed memory as programs use it on GPUs without concurrent access: the
// host fills arrays, kernels update them, the host reads and changes them
// between synchronizations; each step checked against the CPU.
#include "check.h"
#include <vector>

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void flagNegative(const float *y, int n, bool *found) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && y[i] < 0)
    *found = true;
}

// systemWideAtomics' device half: every thread adds to one counter.
__global__ void addSystem(int *counter, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd_system(counter, 10);
}

int main() {
  int managed = 0;
  CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0));
  if (!managed) {
    std::fprintf(stderr, "FAIL managed_memory: the device reports none\n");
    return 1;
  }
  const int n = 3 << 18; // 3 MiB per array: mirrors of many pages
  float *x, *y;
  bool *found;
  CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  CHECK(cudaMallocManaged(&y, n * sizeof(float)));
  CHECK(cudaMallocManaged(&found, sizeof(bool)));
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, y + 7));
  long bad = attr.type != cudaMemoryTypeManaged;

  std::vector<float> cx(n), cy(n);
  for (int i = 0; i < n; ++i) {
    x[i] = cx[i] = float(i % 97) - 48.0f;
    y[i] = cy[i] = float(i % 13);
  }
  *found = false;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  // Without concurrent managed access a GPU refuses prefetches and takes
  // stream attachments of whole allocations.
  int concurrent = 1;
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess,
                               0));
  bad += concurrent != 0;
  bad += cudaMemPrefetchAsync(x, n * sizeof(float), 0, stream) !=
         cudaErrorInvalidDevice;
  cudaGetLastError(); // that error is expected
  CHECK(cudaStreamAttachMemAsync(stream, found, 0, cudaMemAttachGlobal));
  for (int step = 0; step < 4; ++step) {
    float a = 0.5f + step;
    axpy<<<(n + 255) / 256, 256, 0, step % 2 ? stream : 0>>>(a, x, y, n);
    CHECK(cudaGetLastError());
    if (step % 2)
      CHECK(cudaStreamSynchronize(stream));
    else
      CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i)
      cy[i] = a * cx[i] + cy[i];
    for (int i = 0; i < n; ++i)
      bad += y[i] != cy[i];
    // The host changes a few elements of y only; the next kernel sees them.
    for (int i = step; i < n; i += 4099)
      y[i] = cy[i] = float(step);
  }
  flagNegative<<<(n + 255) / 256, 256>>>(y, n, found);
  CHECK(cudaDeviceSynchronize());
  bool cpuFound = false;
  for (int i = 0; i < n; ++i)
    cpuFound |= cy[i] < 0;
  bad += *found != cpuFound;

  // A copy out of managed memory reads what the host last wrote.
  y[1] = 1234.0f;
  float copied = 0;
  CHECK(cudaMemcpy(&copied, y + 1, sizeof(float), cudaMemcpyDefault));
  bad += copied != 1234.0f;

  // systemWideAtomics' pattern with the synchronization that GPUs without
  // concurrent managed access need: the device's atomics, then the host's
  // (without it the runtime ends the program, naming the access).
  const int threads = 64 * 256;
  int *counter;
  CHECK(cudaMallocManaged(&counter, sizeof(int)));
  *counter = 0;
  addSystem<<<64, 256>>>(counter, threads);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < threads; ++i)
    __sync_fetch_and_add(counter, 10);
  bad += *counter != 2 * 10 * threads;
  CHECK(cudaFree(counter));

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(found));
  return finish("managed_memory", bad);
}
