// LLVM pass: in device (NVPTX) functions, rewrites the integer packing of
// two 16-bit values into one 32-bit value (zext, shl 16, or; a splat as a
// multiplication by 65537) as a two-element vector of i16 bitcast to i32.
//
// Why: CUDA's half2 is two 16-bit halves, and LLVM's instcombine turns
// make_half2(x, y) into that integer arithmetic, which NVPTX emits as
// cvt/shl/or. nvcc emits `mov.b32 %r, {%lo, %hi}` (or a v2.u16 store)
// instead, and ptxas fuses that with the two f32 -> f16 conversions
// (cvt.rn.f16.f32) before it into one F2FP.PACK_AB; from the integer form
// it keeps two F2F and a PRMT. In llama.cpp's tensor-core flash attention
// the main loop held 270 F2F where nvcc's holds 80 F2FP; with the pass 136
// F2FP, and the same PRMT count as nvcc's. (That the conversions were what
// made that kernel 1.7 times slower than nvcc's was a guess the H100
// refuted: the kernel got 1 % faster;
// docs/design/device-codegen.md.)
// The vector form is the same bits: nothing else changes.
//
// It also folds CUDA's __float2half of a constant (an asm in CUDA 12.4's
// headers, "cvt.rn.f16.f32", which LLVM cannot see through; nvcc's headers
// use builtins it folds) to the half's bits, rounded to nearest even as
// the instruction rounds: a half2 {0, 0} is a constant again (WideCopyPass
// relies on that for flash attention's array of zeros).
#ifndef RC_PLUGIN_HALFPAIRPASS_H
#define RC_PLUGIN_HALFPAIRPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class HalfPairPass : public llvm::PassInfoMixin<HalfPairPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &);
};

} // namespace rcplugin

#endif
