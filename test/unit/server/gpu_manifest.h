// A manifest around the real sm_90 fatbin built from gpu_kernels.cu, for
// the CUDA-backend tests (in process and through the rc-server binary).
#ifndef RC_SERVER_GPU_MANIFEST_H
#define RC_SERVER_GPU_MANIFEST_H

#include <cstdint>
#include <string>

namespace rc::server::test {

struct GpuManifest {
  std::string path;
  uint64_t hash = 0, scale = 0, consume = 0, spin = 0, say = 0, check = 0,
           table = 0;
};

// Reads the fatbin (RC_TEST_FATBIN from the environment, else the build's)
// and writes a manifest for scale/consume/spin/say/check/gTable into a
// temp dir.
// `extraKernel` adds a kernel that is not in the fatbin.
GpuManifest writeGpuManifest(const char *extraKernel = nullptr);

} // namespace rc::server::test

#endif
