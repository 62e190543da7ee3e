// The occupancy calculator against cases computed by hand with the formula
// of CUDA's occupancy calculator, and against that calculator itself
// (cuda_occupancy.h, header-only). Hand cases use H100 numbers: 2048
// threads, 32 blocks, 64 K registers (4 sub-partitions of 16 K) and 228 KiB
// of shared memory per SM, 1 KiB reserved per block, 227 KiB opt-in.
#include "core/occupancy.h"

// CUDA's own header-only occupancy calculator, the reference.
#include <cuda_occupancy.h>

#include <gtest/gtest.h>

#include <initializer_list>

using rc::rt::maxActiveBlocksPerSM;
using rc::rt::OccupancyDevice;
using rc::rt::OccupancyKernel;

namespace {

OccupancyKernel kernel(int regs, size_t staticSmem = 0,
                       int maxDyn = 48 * 1024) {
  OccupancyKernel k;
  k.numRegs = regs;
  k.staticSmem = staticSmem;
  k.maxDynamicSmem = maxDyn;
  return k;
}

TEST(Occupancy, WarpLimited) {
  // 256 threads = 8 warps: 64 warps / 8 = 8 blocks; registers: 32 x 32 =
  // 1024 per warp, 16384 / 1024 = 16 warps per sub-partition, 64 / 8 = 8.
  auto L = maxActiveBlocksPerSM(OccupancyDevice(), kernel(32), 256, 0);
  EXPECT_EQ(L.warps, 8);
  EXPECT_EQ(L.registers, 8);
  EXPECT_EQ(L.sharedMemory, 228); // 233472 / 1024 (the reservation)
  EXPECT_EQ(L.result, 8);
}

TEST(Occupancy, RegisterGranularityAndSubPartitions) {
  // 96 threads = 3 warps, 40 registers: 40 x 32 = 1280 per warp (a multiple
  // of 256); 16384 / 1280 = 12 warps per sub-partition -> 48 / 3 = 16.
  auto L = maxActiveBlocksPerSM(OccupancyDevice(), kernel(40), 96, 0);
  EXPECT_EQ(L.warps, 21);
  EXPECT_EQ(L.registers, 16);
  EXPECT_EQ(L.result, 16);
  // 33 registers round up to 34 x 32 = 1088 -> 1280: the same answer.
  EXPECT_EQ(maxActiveBlocksPerSM(OccupancyDevice(), kernel(33), 96, 0).result,
            16);
}

TEST(Occupancy, TooManyRegistersForOneBlockIsZero) {
  // 1024 threads x 72 registers = 73728 > 65536 registers per block.
  auto L = maxActiveBlocksPerSM(OccupancyDevice(), kernel(72), 1024, 0);
  EXPECT_EQ(L.registers, 0);
  EXPECT_EQ(L.result, 0);
}

TEST(Occupancy, SharedMemoryLimited) {
  // 48 KiB dynamic + 1 KiB reserved = 50176 bytes per block; default
  // carveout is the whole 228 KiB: 233472 / 50176 = 4.
  auto L = maxActiveBlocksPerSM(OccupancyDevice(), kernel(64, 0, 48 * 1024),
                                128, 48 * 1024);
  EXPECT_EQ(L.registers, 8);
  EXPECT_EQ(L.sharedMemory, 4);
  EXPECT_EQ(L.result, 4);
  // Static shared memory counts too, rounded to 128-byte units:
  // 1000 + 16384 + 1024 = 18408 -> 18432; 233472 / 18432 = 12.
  EXPECT_EQ(
      maxActiveBlocksPerSM(OccupancyDevice(), kernel(16, 1000), 128, 16384)
          .sharedMemory,
      12);
}

TEST(Occupancy, CarveoutPreferencePicksASmallerConfiguration) {
  // 25 % of 228 KiB = 58368 bytes -> the 64 KiB configuration;
  // 16 KiB + 1 KiB per block: 65536 / 17408 = 3.
  OccupancyKernel k = kernel(16);
  k.preferredCarveout = 25;
  auto L = maxActiveBlocksPerSM(OccupancyDevice(), k, 64, 16384);
  EXPECT_EQ(L.smemConfig, 65536u);
  EXPECT_EQ(L.result, 3);
  // A block that needs more than the preference grows the carveout:
  // 40 KiB + 1 KiB = 41984 -> the 64 KiB configuration still, 1 block.
  EXPECT_EQ(maxActiveBlocksPerSM(OccupancyDevice(), k, 64, 40960).result, 1);
}

TEST(Occupancy, LaunchesTheKernelCannotRunAreZero) {
  OccupancyKernel k = kernel(16);
  k.maxThreadsPerBlock = 256;
  EXPECT_EQ(maxActiveBlocksPerSM(OccupancyDevice(), k, 512, 0).result, 0);
  // Dynamic shared memory above the kernel's limit (not raised with
  // cudaFuncSetAttribute).
  EXPECT_EQ(
      maxActiveBlocksPerSM(OccupancyDevice(), kernel(16), 64, 64 * 1024).result,
      0);
  // Block-count limit: tiny blocks stop at 32 per SM.
  EXPECT_EQ(maxActiveBlocksPerSM(OccupancyDevice(), kernel(8), 32, 0).result,
            32);
}

// Every combination below against cuda_occupancy.h's
// cudaOccMaxActiveBlocksPerMultiprocessor (opt-in shared memory limit, the
// carveout preference as the device state), on Volta, Ampere (8.0, 8.6),
// Ada and Hopper numbers: 132300 cases, all equal when written.
TEST(Occupancy, MatchesCudasOccupancyHeader) {
  struct Dev {
    int major, minor, threads, blocks;
    size_t smem, optin;
  };
  int mismatches = 0, total = 0;
  for (Dev dv : {Dev{9, 0, 2048, 32, 233472, 232448},
                 Dev{8, 0, 2048, 32, 167936, 166912},
                 Dev{8, 6, 1536, 16, 102400, 101376},
                 Dev{8, 9, 1536, 24, 102400, 101376},
                 Dev{7, 0, 2048, 32, 98304, 98304}}) {
    cudaOccDeviceProp p;
    p.computeMajor = dv.major;
    p.computeMinor = dv.minor;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsPerMultiprocessor = dv.threads;
    p.regsPerBlock = 65536;
    p.regsPerMultiprocessor = 65536;
    p.warpSize = 32;
    p.sharedMemPerBlock = 49152;
    p.sharedMemPerMultiprocessor = dv.smem;
    p.numSms = 132;
    p.sharedMemPerBlockOptin = dv.optin;
    p.reservedSharedMemPerBlock = dv.major >= 8 ? 1024 : 0;
    OccupancyDevice d;
    d.ccMajor = dv.major;
    d.ccMinor = dv.minor;
    d.maxThreadsPerSM = dv.threads;
    d.maxBlocksPerSM = dv.blocks;
    d.smemPerSM = dv.smem;
    d.smemPerBlockOptin = dv.optin;
    d.reservedSmemPerBlock = p.reservedSharedMemPerBlock;
    for (int regs : {0, 8, 16, 24, 32, 33, 40, 48, 64, 72, 96, 128, 168, 255})
      for (int bs : {32, 64, 96, 128, 160, 256, 384, 512, 768, 1024})
        for (size_t st : {size_t(0), size_t(1000), size_t(8192)})
          for (size_t dyn : {size_t(0), size_t(1024), size_t(4096),
                             size_t(16384), size_t(40000), size_t(49152),
                             size_t(65536), size_t(100000), size_t(200000)})
            for (int carveout : {-1, 0, 10, 25, 50, 75, 100}) {
              cudaOccFuncAttributes a;
              a.maxThreadsPerBlock = 1024;
              a.numRegs = regs;
              a.sharedSizeBytes = st;
              a.partitionedGCConfig = PARTITIONED_GC_OFF;
              a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
              a.maxDynamicSharedSizeBytes = int(dv.optin - st);
              a.numBlockBarriers = 1;
              cudaOccDeviceState state;
              state.carveoutConfig =
                  carveout < 0 ? SHAREDMEM_CARVEOUT_DEFAULT : carveout;
              cudaOccResult r;
              int ref = cudaOccMaxActiveBlocksPerMultiprocessor(
                            &r, &p, &a, &state, bs, dyn) == CUDA_OCC_SUCCESS
                            ? r.activeBlocksPerMultiprocessor
                            : -1;
              OccupancyKernel k;
              k.numRegs = regs;
              k.staticSmem = st;
              k.maxDynamicSmem = int(dv.optin - st);
              k.preferredCarveout = carveout;
              int mine = maxActiveBlocksPerSM(d, k, bs, dyn).result;
              ++total;
              if (mine != ref && ++mismatches <= 10)
                ADD_FAILURE()
                    << "cc " << dv.major << "." << dv.minor << " regs " << regs
                    << " block " << bs << " static " << st << " dynamic " << dyn
                    << " carveout " << carveout << ": CUDA " << ref << ", ours "
                    << mine;
            }
  }
  EXPECT_EQ(mismatches, 0) << "of " << total;
}

} // namespace
