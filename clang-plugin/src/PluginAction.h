// The AST plugin "rcplugin": runs before clang's codegen in the host compile
// of a CUDA TU, collects kernels/variables/launch sites, diagnoses what
// cannot be remoted, and writes the TU's manifest fragment to
// -fplugin-arg-rcplugin-out=PATH (without it, it only diagnoses).
// -fplugin-arg-rcplugin-gcc-narrowing: narrowing diagnosed as gcc does
// (GccNarrowing.h), in CUDA and plain C++ compiles alike.
#ifndef RC_PLUGIN_PLUGINACTION_H
#define RC_PLUGIN_PLUGINACTION_H

#include "clang/Frontend/FrontendAction.h"

#include <string>

namespace rcplugin {

class RcPluginAction : public clang::PluginASTAction {
protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &ci,
                    llvm::StringRef inFile) override;
  bool ParseArgs(const clang::CompilerInstance &ci,
                 const std::vector<std::string> &args) override;
  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  std::string outPath_;
  bool gccNarrowing_ = false;
};

} // namespace rcplugin

#endif
