// clang's start-up registration hooks and its <<<>>> call-configuration
// stack. Bookkeeping only: nothing here contacts the server.
#include "api/global.h"
#include "core/unsupported.h"
#include "manifests/startup_registry.h"

#include <vector>

using rc::rt::StartupRegistry;

namespace {
struct CallConfig {
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
};
// <<<>>> pushes, the kernel's host stub pops; nested launches (a launch in
// an argument expression) make it a stack, per thread like cudart's.
std::vector<CallConfig> &configStack() {
  thread_local std::vector<CallConfig> stack;
  return stack;
}
} // namespace

extern "C" {

void **__cudaRegisterFatBinary(void *fatCubin) {
  return StartupRegistry::instance().registerFatbin(fatCubin);
}

void __cudaRegisterFatBinaryEnd(void **) {}

void __cudaUnregisterFatBinary(void **handle) {
  StartupRegistry::instance().unregisterFatbin(handle);
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *,
                            const char *deviceName, int, uint3 *, uint3 *,
                            dim3 *, dim3 *, int *) {
  StartupRegistry::instance().registerFunction(handle, hostFun, deviceName);
}

void __cudaRegisterVar(void **handle, char *hostVar, char *,
                       const char *deviceName, int, size_t, int, int) {
  StartupRegistry::instance().registerVar(handle, hostVar, deviceName);
}

// The toolchain diagnoses these at compile time; a binary that still
// registers one (built without the plugin) is told at start-up.
void __cudaRegisterManagedVar(void **, void **, char *, const char *name, int,
                              size_t, int, int) {
  __rc_report_unsupported("__managed__ variables", "runtime");
  (void)name;
}
void __cudaRegisterTexture(void **, const void *, const void **, const char *,
                           int, int, int) {
  __rc_report_unsupported("texture references", "runtime");
}
void __cudaRegisterSurface(void **, const void *, const void **, const char *,
                           int, int) {
  __rc_report_unsupported("surface references", "runtime");
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem,
                                     struct CUstream_st *stream) {
  configStack().push_back({grid, block, shmem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem,
                                       void *stream) {
  auto &stack = configStack();
  if (stack.empty())
    return cudaErrorMissingConfiguration;
  CallConfig c = stack.back();
  stack.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shmem = c.shmem;
  *static_cast<cudaStream_t *>(stream) = c.stream;
  return cudaSuccess;
}

} // extern "C"
