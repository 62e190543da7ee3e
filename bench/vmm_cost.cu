// What backing device allocations with the driver's virtual memory
// management (VMM) would cost rc-server against cuMemAlloc, and what moving
// them takes (docs/design/memory.md): local CUDA only, driver API, built by
// bench/vmm-cost.sh with nvcc.
//   vmm_cost [REPS]
// For each size: the median of REPS of
//   alloc+free   cuMemAlloc + cuMemFree
//   vmm          cuMemAddressReserve + cuMemCreate + cuMemMap +
//                cuMemSetAccess, then cuMemUnmap + cuMemRelease +
//                cuMemAddressFree (what a VMM-backed cudaMalloc and cudaFree
//                would do)
//   remap        cuMemUnmap + cuMemMap of another physical allocation at the
//                same address + cuMemSetAccess (what a swap-in or a
//                migration's last step does besides the copy)
//   and the bytes the granularity adds (rounding up to it).
// Then the copy rates a swap depends on: device to pinned host and back,
// 1 GiB. Prints one JSON line per measurement.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define DRV(call)                                                              \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = nullptr;                                                \
      cuGetErrorString(r_, &s_);                                               \
      std::fprintf(stderr, "%s: %s\n", #call, s_ ? s_ : "?");                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {
using Clock = std::chrono::steady_clock;

double microsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

struct Vmm {
  CUmemAllocationProp prop{};
  CUmemAccessDesc access{};
  size_t granularity = 0;
  explicit Vmm(int device) {
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemGetAllocationGranularity(&granularity, &prop,
                                      CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  }
};

void line(const char *what, size_t bytes, double us, const char *extra = "") {
  std::printf("{\"measure\": \"%s\", \"bytes\": %zu, \"us\": %.2f%s}\n", what,
              bytes, us, extra);
}
} // namespace

int main(int argc, char **argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  DRV(cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  DRV(cuDeviceGet(&dev, 0));
  DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
  DRV(cuCtxSetCurrent(ctx));
  Vmm vmm{int(dev)};
  size_t recommended = 0;
  DRV(cuMemGetAllocationGranularity(&recommended, &vmm.prop,
                                    CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  std::printf("{\"granularity_min\": %zu, \"granularity_recommended\": %zu}\n",
              vmm.granularity, recommended);

  const size_t sizes[] = {4096,     65536,     1 << 20,   2 << 20,
                          16 << 20, 256 << 20, 1ull << 30};
  for (size_t bytes : sizes) {
    std::vector<double> plain, mapped, remapped;
    const size_t padded = roundUp(bytes, vmm.granularity);
    for (int r = 0; r < reps; ++r) {
      CUdeviceptr p;
      auto t = Clock::now();
      DRV(cuMemAlloc(&p, bytes));
      DRV(cuMemFree(p));
      plain.push_back(microsSince(t));

      CUdeviceptr va;
      CUmemGenericAllocationHandle h, other;
      t = Clock::now();
      DRV(cuMemAddressReserve(&va, padded, 0, 0, 0));
      DRV(cuMemCreate(&h, padded, &vmm.prop, 0));
      DRV(cuMemMap(va, padded, 0, h, 0));
      DRV(cuMemSetAccess(va, padded, &vmm.access, 1));
      double made = microsSince(t);
      // The remap: another physical allocation at the same address, made
      // beforehand (a swap-in's pool, a migration's target).
      DRV(cuMemCreate(&other, padded, &vmm.prop, 0));
      t = Clock::now();
      DRV(cuMemUnmap(va, padded));
      DRV(cuMemMap(va, padded, 0, other, 0));
      DRV(cuMemSetAccess(va, padded, &vmm.access, 1));
      remapped.push_back(microsSince(t));
      t = Clock::now();
      DRV(cuMemUnmap(va, padded));
      DRV(cuMemRelease(other));
      DRV(cuMemRelease(h));
      DRV(cuMemAddressFree(va, padded));
      mapped.push_back(made + microsSince(t));
    }
    char extra[64];
    std::snprintf(extra, sizeof extra, ", \"padded_bytes\": %zu", padded);
    line("cuMemAlloc+cuMemFree", bytes, median(plain));
    line("vmm map+unmap", bytes, median(mapped), extra);
    line("vmm remap", bytes, median(remapped));
  }

  // The copies a swap is made of: 1 GiB device <-> pinned host.
  const size_t big = 1ull << 30;
  CUdeviceptr d;
  void *host;
  DRV(cuMemAlloc(&d, big));
  DRV(cuMemAllocHost(&host, big));
  DRV(cuMemsetD8(d, 1, big));
  for (int dir = 0; dir < 2; ++dir) {
    std::vector<double> us;
    for (int r = 0; r < 5; ++r) {
      auto t = Clock::now();
      if (dir == 0)
        DRV(cuMemcpyDtoH(host, d, big));
      else
        DRV(cuMemcpyHtoD(d, host, big));
      us.push_back(microsSince(t));
    }
    double m = median(us);
    char extra[64];
    std::snprintf(extra, sizeof extra, ", \"GB_per_s\": %.2f", big / m / 1e3);
    line(dir == 0 ? "swap out copy D2H pinned" : "swap in copy H2D pinned", big,
         m, extra);
  }
  DRV(cuMemFreeHost(host));
  DRV(cuMemFree(d));
  DRV(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
