// A warp reduction whose value is not a member mask (redux-sync.test).
__global__ void sum(int *out, int v) { *out = __reduce_add_sync(0xffffffffu, v + (int)threadIdx.x); }
