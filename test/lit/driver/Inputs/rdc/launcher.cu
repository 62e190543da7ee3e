// Launches a kernel that another translation unit defines (cuda-samples'
// UnifiedMemoryPerf): with -rdc the declaration must not reach the PTX.
__global__ void spin(volatile unsigned *latch);

void launchSpin(volatile unsigned *latch) { spin<<<1, 1>>>(latch); }
