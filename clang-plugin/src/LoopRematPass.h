// LLVM pass: in device (NVPTX) functions, recomputes cheap loop-invariant
// address arithmetic inside loops whose live-in values would otherwise
// crowd the register file.
//
// Why: LICM hoists every loop-invariant computation out of its loop. In
// llama.cpp's tensor-core flash attention that is 64 shared-memory
// addresses for the ldmatrix asm (each a base plus a swizzled offset),
// 64-bit values computed once and then held across the whole main loop,
// on top of the accumulators: the 128-wide kernel needed more than the 255
// registers its launch bounds allow and ptxas spilled (nvcc's NVVM
// rematerializes such values under register pressure; LLVM 19 has no
// NVPTX pass that does). Recomputing them costs a few integer instructions
// per use; leaving them hoisted cost local-memory traffic in every
// iteration: 818 bytes of spills with 64-bit pointers, 266 with 32-bit
// ones, none with this pass
// (docs/design/device-codegen.md).
//
// What it does, per loop: when the 32-bit registers needed by the values
// that live into the loop (invariants used inside, header phis) exceed a
// budget (-rc-loop-remat-budget, 384), it takes the invariant generic
// addresses of shared memory among them: cheap integer or pointer
// arithmetic (binary integer operations other than division, casts, GEPs)
// over an addrspacecast of a shared pointer, and the leaves that
// arithmetic starts from. If the leaves need fewer registers than the
// values themselves, every such value is cloned next to its uses inside
// the loop and the hoisted original goes away. Other hoisted arithmetic
// stays where it is: ptxas copes with it (llama.cpp's mmq kernels hold as
// much without spilling), and recomputing it only lengthened their loops.
#ifndef RC_PLUGIN_LOOPREMATPASS_H
#define RC_PLUGIN_LOOPREMATPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class LoopRematPass : public llvm::PassInfoMixin<LoopRematPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &fam);
};

} // namespace rcplugin

#endif
