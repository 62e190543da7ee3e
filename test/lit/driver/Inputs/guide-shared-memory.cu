// The CUDA guide's dynamic shared memory: extern __shared__ arrays of
// several types, one allocation carved into arrays of different types, and
// a template's typed view of raw storage.
#include <cuda_fp16.h>

extern __shared__ float fileScope[];

__global__ void carved(float *out, int nShorts) {
  extern __shared__ float array[];
  short *array0 = (short *)array;
  float *array1 = (float *)&array0[nShorts];
  int *array2 = (int *)&array1[64];
  array0[threadIdx.x] = 1;
  array1[threadIdx.x] = 2.0f;
  array2[threadIdx.x] = 3;
  __syncthreads();
  out[threadIdx.x] =
      array0[threadIdx.x] + array1[threadIdx.x] + array2[threadIdx.x];
}
template <class T> __global__ void reverse(T *data) {
  extern __shared__ __align__(sizeof(T)) unsigned char raw[];
  T *s = reinterpret_cast<T *>(raw);
  s[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
__global__ void halves(__half *out) {
  extern __shared__ __half h[];
  h[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = h[0];
}
__global__ void doubles(double *out) {
  extern __shared__ double d[];
  d[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = d[1];
}
__global__ void vectors(int4 *out) {
  extern __shared__ int4 v[];
  v[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = v[2];
}
__global__ void fromFileScope(float *out) {
  fileScope[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[0] = fileScope[3];
}

void launch(float *f, double *d, __half *h, int *i, int4 *v) {
  carved<<<1, 64, 1024>>>(f, 64);
  reverse<double><<<1, 64, 64 * sizeof(double)>>>(d);
  reverse<int><<<1, 64, 64 * sizeof(int)>>>(i);
  halves<<<1, 64, 128>>>(h);
  doubles<<<1, 64, 512>>>(d);
  vectors<<<1, 64, 1024>>>(v);
  fromFileScope<<<1, 64, 256>>>(f);
}
