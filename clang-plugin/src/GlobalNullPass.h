// LLVM pass: in device (NVPTX) kernels, a null pointer that meets pointers
// into the kernel's pointer arguments in a phi is written as the global
// address space's null, cast to generic (the same bits: address 0).
//
// Why: NVPTX marks a kernel's pointer arguments global, and its
// InferAddressSpaces then turns generic loads through them into global
// ones. A phi is global only if every incoming value is; a plain null
// constant counts as generic (LLVM 19 casts constants only in selects), so
// the phi, and every load behind it, stays generic. llama.cpp's flash
// attention picks its mask pointer that way (`mask ? mask + offset :
// nullptr`): its 192 mask loads in the 128-wide kernel were `ld.u16`,
// nvcc's `ld.global.u16`. Only phis whose other incoming values all come
// from the kernel's arguments are rewritten: those then become global.
#ifndef RC_PLUGIN_GLOBALNULLPASS_H
#define RC_PLUGIN_GLOBALNULLPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class GlobalNullPass : public llvm::PassInfoMixin<GlobalNullPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &);
};

} // namespace rcplugin

#endif
