// Compile-time cluster dimensions, which clang 19 cannot emit.
__global__ void __cluster_dims__(2, 1, 1) clustered(int *p) { p[blockIdx.x] = 1; }
void host(int *p) { clustered<<<4, 32>>>(p); }
