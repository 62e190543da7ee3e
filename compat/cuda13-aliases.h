// For the nvcc reference builds of compat/yardstick.py only (its toolkit's
// nvcc passes `-include` of this file): CUDA 13 removed the cudaThread*
// calls that CUDA 12 still declared as deprecated aliases, and Rodinia and
// SHOC, older than both, call them. Without these the GPU machine's nvcc
// builds most of Rodinia not at all, and no remote run would have a local
// one to be compared with. Each is what CUDA 12's documentation says it is.
// Macros, not functions: nothing is included or defined before the
// program's own headers (an include here changed what gcc-linked objects
// need).
#ifndef RC_COMPAT_CUDA13_ALIASES_H
#define RC_COMPAT_CUDA13_ALIASES_H
#define cudaThreadSynchronize cudaDeviceSynchronize
#define cudaThreadExit cudaDeviceReset
#endif
