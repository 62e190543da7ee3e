// A kernel and its host-side launcher, called from main.cpp.
__global__ void scale(float *v, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= by;
}

int scale_on_gpu(float *host, int n) {
  float *dev = nullptr;
  if (cudaMalloc(&dev, n * sizeof(float)) != cudaSuccess)
    return 1;
  cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 127) / 128, 128>>>(dev, 2.0f, n);
  cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost);
  return cudaFree(dev) != cudaSuccess;
}
