// Device code for the CUDA-backend test (gpu_test.cpp): built by clang into
// a real fatbin, which the test puts into an in-test manifest.
#include <cassert>

struct Pair {
  long tag;
  float *p;
};

__constant__ float gTable[16];

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * gTable[0];
}

// Writes through a pointer that lives inside a by-value struct.
__global__ void consume(Pair s) { s.p[threadIdx.x] = float(s.tag); }

// Spins for `cycles` clock ticks, so timing and queries see pending work.
__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// Device printf: each thread says its tag, block and thread.
__global__ void say(int tag) {
  printf("say %d from block %d thread %d\n", tag, int(blockIdx.x),
         int(threadIdx.x));
}

// A device assert in thread `failing` (none when it is out of range).
__global__ void check(int failing) { assert(int(threadIdx.x) != failing); }
