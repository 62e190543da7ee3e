// Dynamic parallelism: a kernel launched from device code.
__global__ void child(int *p) { *p = 1; }
__global__ void parent(int *p) { child<<<1, 1>>>(p); }
