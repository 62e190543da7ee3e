// The occupancy calculator behind
// cudaOccupancyMaxActiveBlocksPerMultiprocessor: a pure function of the
// device's properties and the kernel's attributes, so the answer is local
// (ggml-cuda asks before every flash-attention launch). It follows the
// structure of CUDA's cuda_occupancy.h: the result is the smallest of four
// limits (warps, blocks, registers, shared memory).
#ifndef RC_RT_OCCUPANCY_H
#define RC_RT_OCCUPANCY_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rc::rt {

struct OccupancyDevice {
  int ccMajor = 9, ccMinor = 0;
  int warpSize = 32;
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  int regsPerSM = 65536;
  int regsPerBlock = 65536;
  size_t smemPerSM = 233472;         // sharedMemPerMultiprocessor
  size_t smemPerBlockOptin = 232448; // sharedMemPerBlockOptin
  size_t reservedSmemPerBlock = 1024;
};

struct OccupancyKernel {
  int numRegs = 0;
  int maxThreadsPerBlock = 1024;
  size_t staticSmem = 0;
  int maxDynamicSmem = 48 * 1024;
  int preferredCarveout = -1; // percent of smemPerSM, -1 = no preference
};

// Each limit, for tests and for explaining an answer.
struct OccupancyLimits {
  int warps = 0, blocks = 0, registers = 0, sharedMemory = 0;
  size_t smemConfig = 0; // the shared-memory carveout chosen, bytes per SM
  int result = 0;
};

// The device's numbers from its CUdevice_attribute values (attrs[a], as
// HelloReply.devices carries them; the client's view, which takes them as
// the GPU reports them): the runtime's answers and the GPU test that holds
// them to the driver's both start here.
OccupancyDevice occupancyDevice(const std::vector<int32_t> &attrs);

// Blocks of `blockSize` threads with `dynamicSmem` bytes that fit on one SM
// at once. 0 when a single block cannot run (too many threads, registers
// or shared memory), as cudart reports it. blockSize must be > 0.
OccupancyLimits maxActiveBlocksPerSM(const OccupancyDevice &dev,
                                     const OccupancyKernel &kernel,
                                     int blockSize, size_t dynamicSmem);

} // namespace rc::rt

#endif
