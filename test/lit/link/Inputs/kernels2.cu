__global__ void kmul(float *a, int n) { a[threadIdx.x] *= n; }
