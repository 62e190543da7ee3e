#include "PureVirtualTrapPass.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace rcplugin {

PreservedAnalyses PureVirtualTrapPass::run(Module &m, ModuleAnalysisManager &) {
  if (!Triple(m.getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  Function *f = m.getFunction("__cxa_pure_virtual");
  if (!f || !f->isDeclaration() || f->use_empty())
    return PreservedAnalyses::all();
  BasicBlock *body = BasicBlock::Create(m.getContext(), "", f);
  IRBuilder<> b(body);
  b.CreateCall(Intrinsic::getDeclaration(&m, Intrinsic::trap));
  b.CreateUnreachable();
  f->setLinkage(GlobalValue::WeakAnyLinkage);
  f->addFnAttr(Attribute::NoReturn);
  return PreservedAnalyses::none();
}

} // namespace rcplugin
