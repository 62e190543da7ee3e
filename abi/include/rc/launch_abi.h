// The contract between the LLVM pass and the client runtime.
//
// clang lowers each kernel's host stub to
//   cudaLaunchKernel(stub, grid, block, args, shmem, stream)
// The pass replaces it with a call of the same shape whose first argument is
// the kernel's constant 64-bit ID:
//   __rc_launch_kernel(id, grid, block, args, shmem, stream)
// dim3 lowers identically in both (x86-64: i64 + i32), so only the first
// operand and the callee change.
#ifndef RC_LAUNCH_ABI_H
#define RC_LAUNCH_ABI_H

#include <cstdint>

// Rewrites the pass performs (first operand: stub pointer -> constant ID):
//   cudaLaunchKernel(stub, g, b, args, shm, s)       -> __rc_launch_kernel(id,
//   g, b, args, shm, s) cudaLaunchKernel_ptsz(...)                       ->
//   __rc_launch_kernel_ptsz(id, ...) cudaLaunchCooperativeKernel(stub, g, b, a,
//   m, s) -> __rc_launch_cooperative_kernel(id, g, b, a, m, s)
//   cudaLaunchKernelExC(cfg, stub, args)             ->
//   __rc_launch_kernel_ex(cfg, id, args)
// The runtime defines all four (extern "C"), e.g.
//   cudaError_t __rc_launch_kernel(uint64_t id, dim3 grid, dim3 block,
//                                  void **args, size_t shmem, cudaStream_t s);
//   cudaError_t __rc_launch_kernel_ex(const cudaLaunchConfig_t *cfg,
//                                     uint64_t id, void **args);
#define RC_LAUNCH_ENTRY "__rc_launch_kernel"
#define RC_LAUNCH_ENTRY_PTSZ "__rc_launch_kernel_ptsz"
#define RC_LAUNCH_COOPERATIVE_ENTRY "__rc_launch_cooperative_kernel"
#define RC_LAUNCH_EX_ENTRY "__rc_launch_kernel_ex"

// Object-file section that carries a translation unit's manifest fragment
// from compile to link: remote-clang embeds it, the link step merges all of
// them into `<output>.rcm` and strips the section from the output.
#define RC_FRAGMENT_SECTION ".rc_manifest"
// Each embedded fragment: 8-byte magic, little-endian uint64 length, then a
// Manifest flatbuffer of that length (one module).
#define RC_FRAGMENT_MAGIC "RCFRAG01"

#endif
