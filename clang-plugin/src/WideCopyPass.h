// LLVM pass: in device (NVPTX) functions, turns a memcpy of 16, 32, 48 or
// 64 bytes whose source and destination are both 16-byte aligned into
// 128-bit vector loads and stores.
//
// Why: copying a 16-byte aligned struct (CUDA's int4, which llama.cpp's
// ggml_cuda_memcpy_1<16> uses to move K/V tiles from global to shared
// memory) is a memcpy in clang's IR, and NVPTX lowers a memcpy with its
// widest integer, 64 bits: two 8-byte loads and stores per thread where
// nvcc emits one ld.v4.u32 and one st.v4.u32. Each warp-wide 8-byte load
// then spans twice the sectors it uses: in the tensor-core flash attention
// Nsight Compute counted 40 % excessive global sectors and 14 % excessive
// shared wavefronts, and its loop stalled on them; with the pass the kernel
// went from 0.590 to 0.830 of nvcc's speed
// (docs/design/device-memory-access.md). The alignment is
// the memcpy's own promise.
//
// A copy's source may be a phi or select between the tile and a small local
// array holding constants (flash attention's out-of-bounds path copies
// from `const half2 zero[4]`). NVPTX's own SROA would split the vector load
// into the array's 4-byte slices to promote it, so such an array (every
// store to it a constant, read only through copies and loads) becomes a
// 16-byte aligned constant global first: reading it gives the same bytes.
#ifndef RC_PLUGIN_WIDECOPYPASS_H
#define RC_PLUGIN_WIDECOPYPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class WideCopyPass : public llvm::PassInfoMixin<WideCopyPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &);
};

} // namespace rcplugin

#endif
