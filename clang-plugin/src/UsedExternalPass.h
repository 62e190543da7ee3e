// LLVM pass: in a device (NVPTX) module of relocatable device code
// (-fgpu-rdc), drops kernel declarations from clang's
// __clang_gpu_used_external list.
//
// Why: with -fgpu-rdc clang 19 lists every kernel the translation unit's
// host code launches in __clang_gpu_used_external, to keep it from being
// discarded. For a kernel defined in another translation unit that entry is
// a mere declaration, which the PTX declares `.extern .func`, a function
// rather than a kernel, and nvlink refuses the link: "Function
// 'spinWhileLessThanOne(volatile unsigned int *)' not declared __global__ in
// all source files" (cuda-samples' UnifiedMemoryPerf). A declaration has
// nothing to keep alive: the list keeps only definitions, and a
// declaration nothing else names is removed.
#ifndef RC_PLUGIN_USEDEXTERNALPASS_H
#define RC_PLUGIN_USEDEXTERNALPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class UsedExternalPass : public llvm::PassInfoMixin<UsedExternalPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
};

} // namespace rcplugin

#endif
