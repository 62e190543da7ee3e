// LLVM pass: in device (NVPTX) functions, a load from a small local array
// (at most 8 elements) at a run-time index becomes a load of every element
// and a chain of selects on the index, and SROA then keeps the array in
// registers.
//
// Why: one run-time index anywhere keeps the whole array in local memory.
// llama.cpp's tensor-core flash attention reads its per-row maxima and sums
// (`float KQ_max[2]`, `KQ_rowsum[2]`) at `threadIdx.x % 2` once, after its
// K/V loop, so clang leaves both arrays in local memory and every loop
// iteration loads and stores them there (37 local loads in the 128-wide
// kernel, nvcc's 6), where nvcc keeps them in registers and selects at the
// end. Only arrays whose every other access is at a constant offset are
// rewritten: those are the ones SROA can then promote.
#ifndef RC_PLUGIN_ARRAYINDEXSELECTPASS_H
#define RC_PLUGIN_ARRAYINDEXSELECTPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class ArrayIndexSelectPass : public llvm::PassInfoMixin<ArrayIndexSelectPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &fam);
};

} // namespace rcplugin

#endif
