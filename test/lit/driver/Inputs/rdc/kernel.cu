// The kernel launcher.cu launches, and a main that calls it.
__global__ void spin(volatile unsigned *latch) {
  while (*latch < 1) {
  }
}

void launchSpin(volatile unsigned *latch);

int main() {
  unsigned *latch = nullptr;
  if (cudaMalloc(&latch, sizeof *latch) == cudaSuccess)
    launchSpin(latch);
  return 0;
}
