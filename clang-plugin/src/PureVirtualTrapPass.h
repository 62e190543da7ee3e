// LLVM pass: in a device (NVPTX) module, gives __cxa_pure_virtual a body
// that traps.
//
// Why: the vtable of a class with a pure virtual function holds
// __cxa_pure_virtual in that slot. nvcc's device runtime defines it for
// device code; clang's CUDA headers leave it undefined, so ptxas or nvlink
// stopped at "Undefined reference to '__cxa_pure_virtual'" (cuda-samples'
// newdelete). Calling it is a program error: the kernel traps, as a host
// program aborts. Defined weak, so that relocatable objects that each
// carry one link together. Done in the IR, not in a header: a __device__
// declaration would clash with <cxxabi.h>'s host one.
#ifndef RC_PLUGIN_PUREVIRTUALTRAPPASS_H
#define RC_PLUGIN_PUREVIRTUALTRAPPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class PureVirtualTrapPass : public llvm::PassInfoMixin<PureVirtualTrapPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
};

} // namespace rcplugin

#endif
