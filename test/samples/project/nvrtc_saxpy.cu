// A kernel compiled at run time by NVRTC (on this machine) and launched
// through the driver API (cuModuleLoadData, cuModuleGetFunction,
// cuLaunchKernel) on rc-server's GPU: what programs that generate device
// code do. Its result must equal the same kernel compiled at build time and
// the host's.
#include "check.h"

#include <cuda.h>
#include <nvrtc.h>

#include <string>
#include <vector>

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = nullptr;                                                \
      cuGetErrorString(r_, &s_);                                               \
      std::fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                   s_ ? s_ : "?");                                             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define CHECK_NVRTC(call)                                                      \
  do {                                                                         \
    nvrtcResult r_ = (call);                                                   \
    if (r_ != NVRTC_SUCCESS) {                                                 \
      std::fprintf(stderr, "FAIL %s: %s\n", #call, nvrtcGetErrorString(r_));   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// The same computation, once in the source NVRTC compiles and once here.
const char *kSource = R"(
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)";

__global__ void saxpyBuilt(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// PTX for this device's architecture, by NVRTC.
std::string compile(int major, int minor) {
  nvrtcProgram prog;
  CHECK_NVRTC(
      nvrtcCreateProgram(&prog, kSource, "saxpy.cu", 0, nullptr, nullptr));
  std::string arch = "--gpu-architecture=compute_" + std::to_string(major) +
                     std::to_string(minor);
  const char *options[] = {arch.c_str()};
  nvrtcResult built = nvrtcCompileProgram(prog, 1, options);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  if (built != NVRTC_SUCCESS) {
    std::string log(logSize, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "FAIL nvrtc: %s\n", log.c_str());
    std::exit(1);
  }
  size_t size = 0;
  CHECK_NVRTC(nvrtcGetPTXSize(prog, &size));
  std::string ptx(size, '\0');
  CHECK_NVRTC(nvrtcGetPTX(prog, ptx.data()));
  nvrtcDestroyProgram(&prog);
  return ptx;
}

int main() {
  const int n = 1 << 20;
  const float a = 2.5f;
  std::vector<float> x(n), y(n), fromNvrtc(n), fromBuild(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 1000) * 0.5f;
    y[i] = float(i % 7) - 3.0f;
  }

  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  int major = 0, minor = 0;
  CHECK_CU(cuDeviceComputeCapability(&major, &minor, dev));
  std::string ptx = compile(major, minor);

  CUcontext ctx;
  CHECK_CU(cuCtxCreate(&ctx, 0, dev));
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction saxpy;
  CHECK_CU(cuModuleGetFunction(&saxpy, module, "saxpy"));

  CUdeviceptr dx, dy;
  CHECK_CU(cuMemAlloc(&dx, n * sizeof(float)));
  CHECK_CU(cuMemAlloc(&dy, n * sizeof(float)));
  CHECK_CU(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CHECK_CU(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  float alpha = a;
  int count = n;
  void *args[] = {&alpha, &dx, &dy, &count};
  CHECK_CU(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr,
                          args, nullptr));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(fromNvrtc.data(), dy, n * sizeof(float)));

  // The build's kernel on the same inputs.
  CHECK_CU(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  saxpyBuilt<<<(n + 255) / 256, 256>>>(a, reinterpret_cast<float *>(dx),
                                       reinterpret_cast<float *>(dy), n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(fromBuild.data(), reinterpret_cast<void *>(dy),
                   n * sizeof(float), cudaMemcpyDeviceToHost));

  long mismatches = 0;
  for (int i = 0; i < n; ++i) {
    float expect = a * x[i] + y[i];
    if (fromNvrtc[i] != expect || fromBuild[i] != fromNvrtc[i])
      ++mismatches;
  }
  std::printf("nvrtc_saxpy: %zu bytes of PTX for compute_%d%d, %d elements\n",
              ptx.size(), major, minor, n);
  CHECK_CU(cuMemFree(dx));
  CHECK_CU(cuMemFree(dy));
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuCtxDestroy(ctx));
  return finish("nvrtc_saxpy", mismatches);
}
