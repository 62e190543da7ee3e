// Prints the priority of a stream created at the default priority, as
// cudaStreamGetPriority and cudaStreamGetAttribute report it; the
// integration test runs it for a tenant whose priority rc-server sets
// (--quotas priority=high).
#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  cudaStream_t s = nullptr;
  int priority = 1;
  cudaLaunchAttributeValue attribute{};
  if (cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 0) !=
          cudaSuccess ||
      cudaStreamGetPriority(s, &priority) != cudaSuccess ||
      cudaStreamGetAttribute(s, cudaLaunchAttributePriority, &attribute) !=
          cudaSuccess ||
      cudaStreamSynchronize(s) != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 1;
  }
  std::printf("priority %d, attribute %d\n", priority, attribute.priority);
  return 0;
}
