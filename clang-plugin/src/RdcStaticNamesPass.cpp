#include "RdcStaticNamesPass.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace rcplugin {

// clang's externalization postfix
// (CodeGenModule::printPostfixForExternalizedDecl).
constexpr StringRef ExternalizedMark = "__static__";

PreservedAnalyses RdcStaticNamesPass::run(Module &m, ModuleAnalysisManager &) {
  if (!Triple(m.getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  // Externalized definitions by the name they had before.
  StringMap<GlobalVariable *> renamed;
  for (GlobalVariable &g : m.globals()) {
    StringRef name = g.getName();
    size_t mark = name.rfind(ExternalizedMark);
    if (!g.isDeclaration() && mark != StringRef::npos && mark > 0)
      renamed[name.take_front(mark)] = &g;
  }
  if (renamed.empty())
    return PreservedAnalyses::all();
  SmallVector<GlobalVariable *, 4> stale;
  for (GlobalVariable &g : m.globals())
    if (g.isDeclaration() && renamed.count(g.getName()))
      stale.push_back(&g);
  for (GlobalVariable *decl : stale) {
    GlobalVariable *def = renamed[decl->getName()];
    Constant *replacement = def;
    if (def->getType() != decl->getType())
      replacement = ConstantExpr::getAddrSpaceCast(def, decl->getType());
    decl->replaceAllUsesWith(replacement);
    decl->eraseFromParent();
  }
  return stale.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

} // namespace rcplugin
