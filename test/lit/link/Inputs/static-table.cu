// ggml-common.h's pattern: a static __device__ lookup table used by an inline
// device function of a header. The AST marks the table used; the device
// compile emits it only if an emitted kernel reaches it.
static __device__ const int table[4] = {3, 1, 4, 1};
static __device__ __forceinline__ int lookup(int i) { return table[i & 3]; }

#ifdef WITH_UNUSED_TEMPLATE
template <typename T> __global__ void empty_kernel() {}
inline const void *unused_probe() { return (const void *)empty_kernel<void>; }
#endif
#ifdef WITH_KERNEL
__global__ void fill(int *out) { out[threadIdx.x] = 7; }
#endif
#ifdef WITH_LOOKUP
__global__ void gather(int *out) { out[threadIdx.x] = lookup(threadIdx.x); }
#endif

// The host side of the TU: a function, so the object is not empty.
int host_only(int x) { return x + 1; }
