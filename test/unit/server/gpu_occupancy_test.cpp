// The client's occupancy answers held to the driver's on a real GPU: the
// runtime's calculator (runtime/src/core/occupancy.h), fed with what
// HelloReply tells a client (the device's attributes, each kernel's
// cuKernelGetAttribute values), must give what
// cuOccupancyMaxActiveBlocksPerMultiprocessor gives for the same cubin on
// the same GPU, for every test kernel, block size and dynamic shared memory
// size tried. cudaOccupancyMaxPotentialBlockSize (cuda_runtime.h) is built
// on these answers. Skipped where libcuda.so.1 or a GPU is missing.
#include "core/occupancy.h"
#include "gpu_driver_library.h"
#include "gpu_server_fixture.h"
#include "rc/fatbin.h"
#include "rc/manifest_file.h"

#include <gtest/gtest.h>

#include <cuda.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace rc::server::test {
namespace {

// The few driver calls the comparison needs, from libcuda.so.1 itself.
struct Driver : DriverLibrary {
  CUresult (*occupancy)(int *, CUfunction, int, size_t) = nullptr;

  bool open() {
    return openLibrary() &&
           resolve(occupancy, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  }
};

class GpuOccupancyTest : public GpuServerTest {};

TEST_F(GpuOccupancyTest, ClientAnswersAreTheDriversForEveryKernel) {
  Bytes reply;
  MemClient c = connect(&reply);
  const wire::HelloReply *hr = asHelloReply(reply);
  ASSERT_TRUE(hr && hr->devices() && hr->kernel_attributes());
  const wire::DeviceInfo *dev = hr->devices()->Get(0);
  std::vector<int32_t> deviceAttrs(dev->attributes()->begin(),
                                   dev->attributes()->end());
  rt::OccupancyDevice d = rt::occupancyDevice(deviceAttrs);

  Driver drv;
  ASSERT_TRUE(drv.open()) << "libcuda.so.1 without the calls needed";
  CUdevice cu = 0;
  CUcontext ctx = nullptr;
  ASSERT_EQ(drv.init(0), CUDA_SUCCESS);
  ASSERT_EQ(drv.deviceGet(&cu, 0), CUDA_SUCCESS);
  ASSERT_EQ(drv.retain(&ctx, cu), CUDA_SUCCESS);
  ASSERT_EQ(drv.push(ctx), CUDA_SUCCESS);
  std::vector<uint8_t> fatbin;
  std::string err;
  const char *env = std::getenv("RC_TEST_FATBIN");
  ASSERT_TRUE(readFile(env ? env : RC_TEST_FATBIN, fatbin, &err)) << err;
  // The driver reads the image with aligned loads.
  std::vector<uint64_t> image((fatbin.size() + 7) / 8);
  std::memcpy(image.data(), fatbin.data(), fatbin.size());
  CUmodule mod = nullptr;
  ASSERT_EQ(drv.load(&mod, image.data()), CUDA_SUCCESS);

  const std::map<uint64_t, const char *> names = {
      {g.scale, "_Z5scalePfi"},
      {g.consume, "_Z7consume4Pair"},
      {g.spin, "_Z4spinx"},
      {g.say, "_Z3sayi"},
      {g.check, "_Z5checki"}};
  int compared = 0, mismatches = 0;
  for (const wire::KernelAttributes *k : *hr->kernel_attributes()) {
    auto name = names.find(k->kernel_id());
    ASSERT_NE(name, names.end());
    CUfunction f = nullptr;
    ASSERT_EQ(drv.function(&f, mod, name->second), CUDA_SUCCESS);
    rt::OccupancyKernel kernel;
    kernel.numRegs = k->num_regs();
    kernel.maxThreadsPerBlock = k->max_threads_per_block();
    kernel.staticSmem = size_t(k->shared_size_bytes());
    kernel.maxDynamicSmem = k->max_dynamic_shared_size_bytes();
    kernel.preferredCarveout = k->preferred_shared_memory_carveout();
    std::printf("%s: %d regs, %d threads, %d static, %d dynamic max, "
                "carveout %d\n",
                name->second, kernel.numRegs, kernel.maxThreadsPerBlock,
                int(kernel.staticSmem), kernel.maxDynamicSmem,
                kernel.preferredCarveout);
    for (int bs = 32; bs <= 1024; bs += 32)
      for (size_t dyn : {size_t(0), size_t(1024), size_t(4096), size_t(16384),
                         size_t(40000)}) {
        int driver = -1;
        ASSERT_EQ(drv.occupancy(&driver, f, bs, dyn), CUDA_SUCCESS)
            << name->second << " block " << bs << " dynamic " << dyn;
        int ours = rt::maxActiveBlocksPerSM(d, kernel, bs, dyn).result;
        ++compared;
        if (ours != driver && ++mismatches <= 10)
          ADD_FAILURE() << name->second << " block " << bs << " dynamic " << dyn
                        << ": driver " << driver << ", client " << ours;
      }
  }
  EXPECT_EQ(mismatches, 0) << "of " << compared;
  EXPECT_GE(compared, 5 * 32 * 5);
  drv.unload(mod);
  drv.pop(&ctx);
  drv.release(cu);
}

} // namespace
} // namespace rc::server::test
