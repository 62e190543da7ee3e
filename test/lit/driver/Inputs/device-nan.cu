// nan("") and nanf("") in device code (cuda-samples' interval library).
__global__ void fill(double *d, float *f) {
  d[0] = nan("");
  f[0] = nanf("");
}
