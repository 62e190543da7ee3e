#include "UsedExternalPass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace rcplugin {

PreservedAnalyses UsedExternalPass::run(Module &m, ModuleAnalysisManager &) {
  if (!Triple(m.getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  GlobalVariable *list = m.getGlobalVariable("__clang_gpu_used_external",
                                             /*AllowInternal=*/true);
  if (!list || !list->hasInitializer())
    return PreservedAnalyses::all();
  auto *entries = dyn_cast<ConstantArray>(list->getInitializer());
  if (!entries)
    return PreservedAnalyses::all();
  SmallVector<Constant *, 8> kept;
  SmallVector<GlobalValue *, 8> dropped;
  for (Use &u : entries->operands()) {
    auto *g = dyn_cast<GlobalValue>(u.get()->stripPointerCasts());
    if (g && g->isDeclaration())
      dropped.push_back(g);
    else
      kept.push_back(cast<Constant>(u.get()));
  }
  if (kept.size() == entries->getNumOperands())
    return PreservedAnalyses::all();
  // The list is only ever named by llvm.compiler.used: rebuild it without
  // the declarations, or drop it with that reference when none is left.
  removeFromUsedLists(m, [&](Constant *c) { return c == list; });
  if (!kept.empty()) {
    auto *type =
        ArrayType::get(entries->getType()->getElementType(), kept.size());
    auto *rebuilt =
        new GlobalVariable(m, type, list->isConstant(), list->getLinkage(),
                           ConstantArray::get(type, kept));
    rebuilt->takeName(list);
    appendToCompilerUsed(m, {rebuilt});
  }
  list->eraseFromParent();
  // Nothing else names them: the PTX must not declare them either.
  for (GlobalValue *g : dropped) {
    g->removeDeadConstantUsers();
    if (g->use_empty())
      g->eraseFromParent();
  }
  return PreservedAnalyses::none();
}

} // namespace rcplugin
