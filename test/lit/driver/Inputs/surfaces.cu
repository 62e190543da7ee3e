// CUDA's surface API as cuda-samples' simpleSurfaceWrite uses it, and the
// other geometries, widths and boundary modes.
__global__ void writeRows(cudaSurfaceObject_t surface, float value) {
  surf2Dwrite(value, surface, 4 * threadIdx.x, blockIdx.x);
}
__global__ void widths(cudaSurfaceObject_t s, char c, short h, double d,
                       float4 f) {
  surf1Dwrite(c, s, 1);
  surf1Dwrite(h, s, 2, cudaBoundaryModeZero);
  surf3Dwrite(d, s, 8, 1, 2, cudaBoundaryModeClamp);
  surf2DLayeredwrite(f, s, 16, 1, 3);
}
__global__ void reads(cudaSurfaceObject_t s, float4 *out, int *count) {
  *count = surf2Dread<int>(s, 4, 5);
  surf1DLayeredread(out, s, 16, 2);
}
