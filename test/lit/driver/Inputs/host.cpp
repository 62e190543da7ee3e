#include <cuda_runtime.h>
cudaError_t host_only(void **p) { return cudaMalloc(p, 16); }
