// A loop over two rows of 18-byte blocks at a runtime index, as llama.cpp's
// fused q4_0 mat-vec reads the weights and the gate.
struct block18 {
  unsigned short d;
  unsigned char qs[16];
};

__global__ void two_rows(const block18 *x, const block18 *g, float *out, int n,
                         int stride) {
  int s = 0;
  for (int k = threadIdx.x; k < n; k += stride)
    s += x[k].qs[3] * g[k].qs[5] + x[k].d;
  out[threadIdx.x] = s;
}
