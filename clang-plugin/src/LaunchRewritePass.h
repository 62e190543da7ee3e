// LLVM pass: in a host module, replaces launches whose kernel operand is a
// registered device stub by the runtime's ID-based entry points
// (rc/launch_abi.h), with the kernel's constant 64-bit ID.
#ifndef RC_PLUGIN_LAUNCHREWRITEPASS_H
#define RC_PLUGIN_LAUNCHREWRITEPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

class LaunchRewritePass : public llvm::PassInfoMixin<LaunchRewritePass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
  // The pass is needed for correctness, so it must also run at -O0 where
  // optnone functions would otherwise make the pass manager skip it.
  static bool isRequired() { return true; }
};

} // namespace rcplugin

#endif
