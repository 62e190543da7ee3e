// A program that loads CUDA itself, as cuda-samples' matrixMulDynlinkJIT
// and frameworks do: it links no CUDA library, dlopens the name it is
// given (libcuda.so.1, libcuda.so or libcudart.so.12) and calls everything
// through dlsym and cuGetProcAddress. Run with remote-clang's library
// folder on LD_LIBRARY_PATH (or by rc-run), against rc-server.
//
//   dlopen_cuda LIBRARY copy|scaled
//
// copy: the host test device (launches are checked, not run): the data
// comes back as it went. scaled: a GPU: the PTX kernel scaled it.
// Exits non-zero naming each failing step.
#include "checks.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace {

// checks.h's CUDA_OK for what the program resolved itself: it links no
// CUDA library, so the code alone.
#define CU_OK(call)                                                            \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      std::fprintf(stderr, "FAIL line %d: %s -> %d\n", __LINE__, #call,        \
                   int(r_));                                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

// scale(float *p, int n, float f): p[i] *= f for i < n.
const char kPtx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry scale(\n"
                    "  .param .u64 scale_param_0,\n"
                    "  .param .u32 scale_param_1,\n"
                    "  .param .f32 scale_param_2\n)\n{\n"
                    "  .reg .pred %p<2>;\n  .reg .b32 %r<6>;\n"
                    "  .reg .f32 %f<4>;\n  .reg .b64 %rd<5>;\n"
                    "  ld.param.u32 %r1, [scale_param_1];\n"
                    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n"
                    "  mov.u32 %r4, %tid.x;\n"
                    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
                    "  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
                    "  ld.param.f32 %f1, [scale_param_2];\n"
                    "  ld.param.u64 %rd2, [scale_param_0];\n"
                    "  cvta.to.global.u64 %rd3, %rd2;\n"
                    "  mul.wide.s32 %rd4, %r5, 4;\n"
                    "  add.s64 %rd1, %rd3, %rd4;\n"
                    "  ld.global.f32 %f2, [%rd1];\n"
                    "  mul.f32 %f3, %f2, %f1;\n"
                    "  st.global.f32 [%rd1], %f3;\nDONE:\n  ret;\n}\n";

using GetProc = CUresult (*)(const char *, void **, int, cuuint64_t,
                             CUdriverProcAddressQueryResult *);

// The driver's resolver: libcuda exports it; the runtime hands it out
// through cudaGetDriverEntryPoint, as frameworks built on cudart get it.
GetProc resolver(void *lib, bool runtime) {
  if (!runtime)
    return reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  auto entry = reinterpret_cast<decltype(&cudaGetDriverEntryPoint)>(
      dlsym(lib, "cudaGetDriverEntryPoint"));
  CHECK(entry != nullptr);
  void *f = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  CHECK(entry && entry("cuGetProcAddress", &f, 0, &status) == cudaSuccess);
  CHECK(status == cudaDriverEntryPointSuccess);
  return reinterpret_cast<GetProc>(f);
}

template <typename F> F proc(GetProc get, const char *name, int version) {
  void *f = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = get(name, &f, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
  if (r != CUDA_SUCCESS || !f || status != CU_GET_PROC_ADDRESS_SUCCESS)
    std::fprintf(stderr, "FAIL: cuGetProcAddress(%s, %d) -> %d, status %d\n",
                 name, version, int(r), int(status)),
        ++failures;
  return reinterpret_cast<F>(f);
}

// NVIDIA's versioning rules, and names that are not driver functions.
void checkResolution(GetProc get, void *lib) {
  void *f = nullptr;
  CUdriverProcAddressQueryResult st;
  CU_OK(get("cuMemAlloc", &f, 12040, 0, &st));
  CHECK(f && f == dlsym(lib, "cuMemAlloc_v2"));
  CU_OK(get("cuCtxCreate", &f, 3020, 0, &st));
  CHECK(f && f == dlsym(lib, "cuCtxCreate_v2"));
  // PFN_cuCtxCreate_v11040 is cuCtxCreate_v3 (execution affinity).
  CU_OK(get("cuCtxCreate", &f, 11040, 0, &st));
  CHECK(f && f == dlsym(lib, "cuCtxCreate_v3"));
  // CUDA 3.x's ABI of cuCtxDestroy, kept for programs that dlsym it.
  CU_OK(get("cuCtxDestroy", &f, 3020, 0, &st));
  CHECK(f && f == dlsym(lib, "cuCtxDestroy") &&
        f != dlsym(lib, "cuCtxDestroy_v2"));
  CU_OK(get("cuCtxDestroy", &f, 4000, 0, &st));
  CHECK(f && f == dlsym(lib, "cuCtxDestroy_v2"));
  CU_OK(get("cuGetProcAddress", &f, 12000, 0, &st));
  CHECK(f && f == dlsym(lib, "cuGetProcAddress_v2"));
  CU_OK(get("cuGetProcAddress", &f, 11030, 0, &st));
  CHECK(f && f == dlsym(lib, "cuGetProcAddress"));
  // cuMemAllocAsync came with CUDA 11.2.
  CU_OK(get("cuMemAllocAsync", &f, 11000, 0, &st));
  CHECK(!f && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  CU_OK(get("cuNoSuchFunction", &f, 12040, 0, &st));
  CHECK(!f && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  CHECK(get("cuMemAlloc", &f, 99000, 0, &st) == CUDA_ERROR_INVALID_VALUE);
  CHECK(get("cuMemAlloc", &f, 12040, 4, &st) == CUDA_ERROR_INVALID_VALUE);
  // A function served as a stub fails at the call, naming itself.
  CU_OK(get("cuGraphicsUnregisterResource", &f, 12040, 0, &st));
  CHECK(f && st == CU_GET_PROC_ADDRESS_SUCCESS);
  if (f)
    CHECK(reinterpret_cast<CUresult (*)(CUgraphicsResource)>(f)(nullptr) ==
          CUDA_ERROR_NOT_SUPPORTED);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dlopen_cuda LIBRARY copy|scaled\n");
    return 2;
  }
  const std::string name = argv[1];
  const bool expectScaled = std::strcmp(argv[2], "scaled") == 0;
  void *lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "FAIL: dlopen(%s): %s\n", name.c_str(), dlerror());
    return 1;
  }
  // Which file the name found: remote-clang's, not NVIDIA's.
  Dl_info info{};
  bool runtime = name.rfind("libcudart", 0) == 0;
  void *any = dlsym(lib, runtime ? "cudaMalloc" : "cuInit");
  CHECK(any && dladdr(any, &info) && info.dli_fname);
  char real[4096] = "";
  if (info.dli_fname && realpath(info.dli_fname, real))
    std::printf("%s is %s\n", name.c_str(), real);
  CHECK(std::strstr(real, runtime ? "librc_cudart.so" : "librc_cuda.so"));

  GetProc get = resolver(lib, runtime);
  if (!get)
    return 1;
  // The rules hold on the driver library's own symbols.
  void *driver = runtime ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) : lib;
  CHECK(driver != nullptr);
  if (driver)
    checkResolution(get, driver);

  auto cuInit = proc<CUresult (*)(unsigned)>(get, "cuInit", 2000);
  auto cuDeviceGetCount =
      proc<CUresult (*)(int *)>(get, "cuDeviceGetCount", 2000);
  auto cuDeviceGet =
      proc<CUresult (*)(CUdevice *, int)>(get, "cuDeviceGet", 2000);
  auto cuCtxCreate = proc<CUresult (*)(CUcontext *, unsigned, CUdevice)>(
      get, "cuCtxCreate", 3020);
  auto cuModuleLoadData = proc<CUresult (*)(CUmodule *, const void *)>(
      get, "cuModuleLoadData", 2000);
  auto cuModuleGetFunction =
      proc<CUresult (*)(CUfunction *, CUmodule, const char *)>(
          get, "cuModuleGetFunction", 2000);
  auto cuMemAlloc =
      proc<CUresult (*)(CUdeviceptr *, size_t)>(get, "cuMemAlloc", 12040);
  auto cuMemcpyHtoD = proc<CUresult (*)(CUdeviceptr, const void *, size_t)>(
      get, "cuMemcpyHtoD", 12040);
  auto cuMemcpyDtoH = proc<CUresult (*)(void *, CUdeviceptr, size_t)>(
      get, "cuMemcpyDtoH", 12040);
  auto cuLaunchKernel = proc<CUresult (*)(
      CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
      unsigned, CUstream, void **, void **)>(get, "cuLaunchKernel", 12040);
  auto cuCtxSynchronize = proc<CUresult (*)()>(get, "cuCtxSynchronize", 12040);
  auto cuMemFree = proc<CUresult (*)(CUdeviceptr)>(get, "cuMemFree", 12040);
  auto cuModuleUnload =
      proc<CUresult (*)(CUmodule)>(get, "cuModuleUnload", 2000);
  auto cuCtxDestroy = proc<CUresult (*)(CUcontext)>(get, "cuCtxDestroy", 12040);
  if (failures)
    return 1;

  CU_OK(cuInit(0));
  int count = 0;
  CU_OK(cuDeviceGetCount(&count));
  CHECK(count >= 1);
  CUdevice dev = -1;
  CUcontext ctx = nullptr;
  CU_OK(cuDeviceGet(&dev, 0));
  CU_OK(cuCtxCreate(&ctx, 0, dev));
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  CU_OK(cuModuleLoadData(&mod, kPtx));
  CU_OK(cuModuleGetFunction(&fn, mod, "scale"));
  CHECK(cuModuleGetFunction(&fn, mod, "missing") == CUDA_ERROR_NOT_FOUND);
  // As matrixMulDynlinkJIT loads: JIT options with an info log to print.
  auto cuModuleLoadDataEx =
      proc<CUresult (*)(CUmodule *, const void *, unsigned, CUjit_option *,
                        void **)>(get, "cuModuleLoadDataEx", 2010);
  char log[64];
  std::memset(log, 'x', sizeof log);
  CUjit_option jit[] = {CU_JIT_INFO_LOG_BUFFER,
                        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *jitValues[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log))};
  CUmodule mod2 = nullptr;
  CU_OK(cuModuleLoadDataEx(&mod2, kPtx, 2, jit, jitValues));
  CHECK(log[0] == '\0' && jitValues[1] == nullptr);
  CU_OK(cuModuleUnload(mod2));
  CU_OK(cuModuleGetFunction(&fn, mod, "scale"));

  const int n = 1000;
  std::vector<float> host(n), back(n, -1.f);
  for (int i = 0; i < n; ++i)
    host[i] = float(i);
  CUdeviceptr d = 0;
  CU_OK(cuMemAlloc(&d, n * sizeof(float)));
  CU_OK(cuMemcpyHtoD(d, host.data(), n * sizeof(float)));
  int nArg = n;
  float factor = 3.f;
  void *params[] = {&d, &nArg, &factor};
  CU_OK(cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params,
                       nullptr));
  CU_OK(cuCtxSynchronize());
  CU_OK(cuMemcpyDtoH(back.data(), d, n * sizeof(float)));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += back[i] != (expectScaled ? host[i] * factor : host[i]);
  CHECK(wrong == 0);
  std::printf("%s: %d of %d values as expected (%s)\n", name.c_str(), n - wrong,
              n, expectScaled ? "scaled by the kernel" : "copied back");
  CU_OK(cuMemFree(d));
  CU_OK(cuModuleUnload(mod));
  CU_OK(cuCtxDestroy(ctx));

  if (runtime) {
    // No kernel of this program is registered with the runtime: a launch
    // by host stub is refused, naming the stub.
    struct Dim3 {
      unsigned x, y, z;
    };
    using Launch = int (*)(const void *, Dim3, Dim3, void **, size_t, void *);
    auto launch = reinterpret_cast<Launch>(dlsym(lib, "cudaLaunchKernel"));
    CHECK(launch && launch(reinterpret_cast<const void *>(&resolver),
                           Dim3{1, 1, 1}, Dim3{1, 1, 1}, nullptr, 0,
                           nullptr) == 98 /* cudaErrorInvalidDeviceFunction */);
  }
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
