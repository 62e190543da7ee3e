// libcuda.so.1's own entry points, for the GPU tests that hold rc-server's
// answers to what the driver itself answers: the context and module calls
// each of them needs, and resolve() for the calls of its own.
#ifndef RC_TEST_GPU_DRIVER_LIBRARY_H
#define RC_TEST_GPU_DRIVER_LIBRARY_H

#include <cuda.h>
#include <dlfcn.h>

#include <type_traits>

namespace rc::server::test {

struct DriverLibrary {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*deviceGet)(CUdevice *, int) = nullptr;
  CUresult (*retain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*release)(CUdevice) = nullptr;
  CUresult (*push)(CUcontext) = nullptr;
  CUresult (*pop)(CUcontext *) = nullptr;
  CUresult (*load)(CUmodule *, const void *) = nullptr;
  CUresult (*unload)(CUmodule) = nullptr;
  CUresult (*function)(CUfunction *, CUmodule, const char *) = nullptr;

  // Opens libcuda.so.1 and resolves the calls above; false when it is
  // missing or lacks one.
  bool openLibrary() {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib_ && resolve(init, "cuInit") &&
           resolve(deviceGet, "cuDeviceGet") &&
           resolve(retain, "cuDevicePrimaryCtxRetain") &&
           resolve(release, "cuDevicePrimaryCtxRelease_v2") &&
           resolve(push, "cuCtxPushCurrent_v2") &&
           resolve(pop, "cuCtxPopCurrent_v2") &&
           resolve(load, "cuModuleLoadData") &&
           resolve(unload, "cuModuleUnload") &&
           resolve(function, "cuModuleGetFunction");
  }

  // `name` from the opened library into `fn`; false when it lacks it.
  template <class F> bool resolve(F &fn, const char *name) {
    fn = lib_ ? reinterpret_cast<F>(dlsym(lib_, name)) : nullptr;
    return fn != nullptr;
  }

private:
  void *lib_ = nullptr;
};

} // namespace rc::server::test

#endif
