// LLVM pass: in a device (NVPTX) module of relocatable device code
// (-fgpu-rdc), points references to a static __device__ variable at its
// externalized definition.
//
// Why: with -fgpu-rdc, clang 19 gives a static __device__ variable that
// host code names (cudaMemcpyToSymbol) a unique external name,
// <name>__static__<hash of the translation unit>, so the host can find it
// in the device-linked image. It decides when it emits the variable: a
// kernel emitted earlier in the translation unit already refers to the
// plain name, which is left behind as an undefined declaration, and the
// device link fails ("nvlink error: Undefined reference to '_ZL7s_count'").
// Both names denote one variable of this translation unit, so the
// declaration is replaced by the definition.
#ifndef RC_PLUGIN_RDCSTATICNAMESPASS_H
#define RC_PLUGIN_RDCSTATICNAMESPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class RdcStaticNamesPass : public llvm::PassInfoMixin<RdcStaticNamesPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
};

} // namespace rcplugin

#endif
