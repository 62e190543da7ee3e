// Textures and surfaces as the CUDA programming guide shows them, checked
// against the host's own arithmetic: a 2D float array read through a
// texture object with point and with linear filtering (normalized
// coordinates, clamped and wrapped), a layered array through cudaMemcpy3D,
// a Pitch2D texture over cudaMallocPitch memory, and a surface written by
// one kernel and read back with cudaMemcpy2DFromArray.
#include "check.h"

#include <cmath>
#include <vector>

namespace {

constexpr int kW = 37, kH = 23, kLayers = 3;

float value(int x, int y, int layer = 0) {
  return float(x * 3 + y * 100 + layer * 10000) * 0.25f;
}

__global__ void fetchPoint(cudaTextureObject_t tex, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

// Between four texels, and past the edges (clamped or wrapped).
__global__ void fetchLinear(cudaTextureObject_t tex, float *out, int n,
                            float u0, float v0, float du) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<float>(tex, u0 + i * du, v0 + i * du * 0.5f);
}

__global__ void fetchLayers(cudaTextureObject_t tex, float *out, int w, int h,
                            int layers) {
  int x = threadIdx.x, y = blockIdx.x, layer = blockIdx.y;
  if (x < w && y < h && layer < layers)
    out[(layer * h + y) * w + x] =
        tex2DLayered<float>(tex, x + 0.5f, y + 0.5f, layer);
}

__global__ void writeSurface(cudaSurfaceObject_t surf, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h)
    surf2Dwrite(float(x) - float(y) * 2.0f, surf, x * int(sizeof(float)), y);
}

// What a GPU's linear filter returns: 8-bit fixed-point weights.
float bilinearHost(const std::vector<float> &img, float u, float v, bool wrap) {
  float x = u * kW - 0.5f, y = v * kH - 0.5f;
  float fx = std::floor(x), fy = std::floor(y);
  float a = std::round((x - fx) * 256.0f) / 256.0f,
        b = std::round((y - fy) * 256.0f) / 256.0f;
  auto at = [&](int i, int j) {
    if (wrap) {
      i = ((i % kW) + kW) % kW;
      j = ((j % kH) + kH) % kH;
    } else {
      i = i < 0 ? 0 : (i >= kW ? kW - 1 : i);
      j = j < 0 ? 0 : (j >= kH ? kH - 1 : j);
    }
    return img[j * kW + i];
  };
  int i = int(fx), j = int(fy);
  return (1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) +
         (1 - a) * b * at(i, j + 1) + a * b * at(i + 1, j + 1);
}

long checkArrayTexture() {
  std::vector<float> img(kW * kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      img[y * kW + x] = value(x, y);
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t array = nullptr;
  CHECK(cudaMallocArray(&array, &f, kW, kH));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, img.data(), kW * sizeof(float),
                            kW * sizeof(float), kH, cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point = 0;
  CHECK(cudaCreateTextureObject(&point, &res, &td, nullptr));
  float *out = nullptr;
  CHECK(cudaMalloc(&out, kW * kH * sizeof(float)));
  fetchPoint<<<dim3(1, kH), 64>>>(point, out, kW, kH);
  CHECK_LAUNCH();
  std::vector<float> got(kW * kH);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  long bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    bad += got[i] != img[i];

  const int n = 200;
  for (bool wrap : {false, true}) {
    td.addressMode[0] = td.addressMode[1] =
        wrap ? cudaAddressModeWrap : cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.normalizedCoords = 1;
    cudaTextureObject_t linear = 0;
    CHECK(cudaCreateTextureObject(&linear, &res, &td, nullptr));
    fetchLinear<<<1, 256>>>(linear, out, n, -0.2f, -0.1f, 0.007f);
    CHECK_LAUNCH();
    CHECK(
        cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      float want = bilinearHost(img, -0.2f + i * 0.007f,
                                -0.1f + i * 0.007f * 0.5f, wrap);
      if (std::fabs(got[i] - want) > 0.02f * (1.0f + std::fabs(want))) {
        if (bad < 5)
          std::fprintf(stderr, "linear %s %d: %f, want %f\n",
                       wrap ? "wrap" : "clamp", i, got[i], want);
        ++bad;
      }
    }
    CHECK(cudaDestroyTextureObject(linear));
  }
  CHECK(cudaDestroyTextureObject(point));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFree(out));
  return bad;
}

long checkLayeredTexture() {
  std::vector<float> img(kW * kH * kLayers);
  for (int l = 0; l < kLayers; ++l)
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x)
        img[(l * kH + y) * kW + x] = value(x, y, l);
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t array = nullptr;
  CHECK(cudaMalloc3DArray(&array, &f, make_cudaExtent(kW, kH, kLayers),
                          cudaArrayLayered));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(img.data(), kW * sizeof(float), kW, kH);
  p.dstArray = array;
  p.extent = make_cudaExtent(kW, kH, kLayers);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  float *out = nullptr;
  CHECK(cudaMalloc(&out, img.size() * sizeof(float)));
  fetchLayers<<<dim3(kH, kLayers), 64>>>(tex, out, kW, kH, kLayers);
  CHECK_LAUNCH();
  std::vector<float> got(img.size());
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  long bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    bad += got[i] != img[i];
  CHECK(cudaDestroyTextureObject(tex));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFree(out));
  return bad;
}

long checkPitchTexture() {
  float *dev = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(reinterpret_cast<void **>(&dev), &pitch,
                        kW * sizeof(float), kH));
  std::vector<float> img(kW * kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      img[y * kW + x] = value(y, x);
  CHECK(cudaMemcpy2D(dev, pitch, img.data(), kW * sizeof(float),
                     kW * sizeof(float), kH, cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = dev;
  res.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  res.res.pitch2D.width = kW;
  res.res.pitch2D.height = kH;
  res.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc td = {};
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  float *out = nullptr;
  CHECK(cudaMalloc(&out, kW * kH * sizeof(float)));
  fetchPoint<<<dim3(1, kH), 64>>>(tex, out, kW, kH);
  CHECK_LAUNCH();
  std::vector<float> got(kW * kH);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  long bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    bad += got[i] != img[i];
  CHECK(cudaDestroyTextureObject(tex));
  CHECK(cudaFree(dev));
  CHECK(cudaFree(out));
  return bad;
}

long checkSurface() {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t array = nullptr;
  CHECK(cudaMallocArray(&array, &f, kW, kH, cudaArraySurfaceLoadStore));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaSurfaceObject_t surf = 0;
  CHECK(cudaCreateSurfaceObject(&surf, &res));
  writeSurface<<<dim3(1, kH), 64>>>(surf, kW, kH);
  CHECK_LAUNCH();
  // Back with a pitch of its own, and one element through the 1D call.
  const int pitchFloats = kW + 5;
  std::vector<float> got(pitchFloats * kH, -7.0f);
  CHECK(cudaMemcpy2DFromArray(got.data(), pitchFloats * sizeof(float), array, 0,
                              0, kW * sizeof(float), kH,
                              cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x)
      bad += got[y * pitchFloats + x] != float(x) - float(y) * 2.0f;
    bad += got[y * pitchFloats + kW] != -7.0f;
  }
  float one = 0;
  CHECK(cudaMemcpyFromArray(&one, array, 3 * sizeof(float), 5, sizeof one,
                            cudaMemcpyDeviceToHost));
  bad += one != 3.0f - 10.0f;
  CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(array));
  return bad;
}

} // namespace

int main() {
  long bad = 0;
  bad += checkArrayTexture();
  bad += checkLayeredTexture();
  bad += checkPitchTexture();
  bad += checkSurface();
  return finish("textures", bad);
}
