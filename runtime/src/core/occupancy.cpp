#include "core/occupancy.h"

#include <cuda.h>

#include <algorithm>
#include <climits>
#include <vector>

namespace rc::rt {

namespace {

int divUp(int a, int b) { return (a + b - 1) / b; }
size_t roundUp(size_t a, size_t b) { return (a + b - 1) / b * b; }

// Registers are allocated per warp in units of 256, and each of the SM's 4
// sub-partitions (warp schedulers) has its own quarter of the register file:
// a warp's registers cannot straddle two of them (cc >= 6.0 except 6.0's 2).
constexpr int kRegAllocUnit = 256;
int subPartitions(const OccupancyDevice &d) {
  return d.ccMajor == 6 && d.ccMinor == 0 ? 2 : 4;
}

// Shared memory is allocated per block in units of 128 bytes.
constexpr size_t kSmemAllocUnit = 128;

// The unified L1/shared-memory carveouts an SM can be configured to (KiB),
// Volta and later; the driver picks one per launch.
std::vector<size_t> carveoutsKiB(const OccupancyDevice &d) {
  std::vector<size_t> all = {0, 8, 16, 32, 64};
  if (d.ccMajor == 7 && d.ccMinor == 0)
    all.push_back(96);
  else if (d.ccMajor == 7)
    return {32, 64}; // Turing
  else
    all.insert(all.end(), {100, 132, 164, 196, 228});
  std::vector<size_t> fit;
  for (size_t k : all)
    if (k * 1024 <= d.smemPerSM)
      fit.push_back(k * 1024);
  if (fit.empty() || fit.back() != d.smemPerSM)
    fit.push_back(d.smemPerSM);
  return fit;
}

} // namespace

OccupancyDevice occupancyDevice(const std::vector<int32_t> &attrs) {
  auto at = [&](CUdevice_attribute a) {
    return size_t(a) < attrs.size() ? attrs[size_t(a)] : 0;
  };
  OccupancyDevice d;
  d.ccMajor = at(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.ccMinor = at(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.warpSize = at(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  d.maxThreadsPerSM = at(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  d.maxBlocksPerSM = at(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  d.regsPerSM = at(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  d.regsPerBlock = at(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  d.smemPerSM =
      size_t(at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  d.smemPerBlockOptin =
      size_t(at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  d.reservedSmemPerBlock =
      size_t(at(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  return d;
}

OccupancyLimits maxActiveBlocksPerSM(const OccupancyDevice &dev,
                                     const OccupancyKernel &k, int blockSize,
                                     size_t dynamicSmem) {
  OccupancyLimits L;
  if (blockSize <= 0 || blockSize > k.maxThreadsPerBlock ||
      dynamicSmem > size_t(std::max(k.maxDynamicSmem, 0)))
    return L; // the kernel cannot be launched like this: 0 blocks

  // Warps: whole warps are scheduled.
  int warpsPerBlock = divUp(blockSize, dev.warpSize);
  L.warps = (dev.maxThreadsPerSM / dev.warpSize) / warpsPerBlock;
  L.blocks = dev.maxBlocksPerSM;

  // Registers.
  int regsPerWarp =
      int(roundUp(size_t(k.numRegs) * dev.warpSize, kRegAllocUnit));
  if (regsPerWarp == 0) {
    L.registers = INT_MAX;
  } else if (regsPerWarp * warpsPerBlock > dev.regsPerBlock) {
    L.registers = 0;
  } else {
    int parts = subPartitions(dev);
    int warpsPerPart = (dev.regsPerSM / parts) / regsPerWarp;
    L.registers = warpsPerPart * parts / warpsPerBlock;
  }

  // Shared memory: per block, static + dynamic + the driver's reservation,
  // in allocation units; per SM, the carveout the driver would configure:
  // the smallest one that covers the kernel's preference (all of it by
  // default), grown if a single block needs more.
  size_t smemPerBlock = roundUp(
      k.staticSmem + dynamicSmem + dev.reservedSmemPerBlock, kSmemAllocUnit);
  if (k.staticSmem + dynamicSmem > dev.smemPerBlockOptin) {
    L.sharedMemory = 0;
  } else {
    size_t want = dev.smemPerSM;
    if (k.preferredCarveout >= 0 && k.preferredCarveout <= 100)
      want = (dev.smemPerSM * size_t(k.preferredCarveout) + 99) / 100;
    want = std::max(want, smemPerBlock);
    std::vector<size_t> configs = carveoutsKiB(dev);
    L.smemConfig = configs.back();
    for (size_t c : configs)
      if (c >= want) {
        L.smemConfig = c;
        break;
      }
    L.sharedMemory = smemPerBlock ? int(L.smemConfig / smemPerBlock) : INT_MAX;
  }

  L.result = std::min({L.warps, L.blocks, L.registers, L.sharedMemory});
  return L;
}

} // namespace rc::rt
