#include "GlobalNullPass.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace rcplugin {
namespace {

constexpr unsigned GenericAddressSpace = 0;
constexpr unsigned GlobalAddressSpace = 1;

// clang marks CUDA kernels in !nvvm.annotations: {ptr @f, !"kernel", i32 1}.
bool isKernel(const Function &f) {
  const NamedMDNode *annotations =
      f.getParent()->getNamedMetadata("nvvm.annotations");
  if (!annotations)
    return false;
  for (const MDNode *entry : annotations->operands()) {
    if (entry->getNumOperands() < 3 ||
        mdconst::dyn_extract_or_null<Function>(entry->getOperand(0)) != &f)
      continue;
    const auto *what = dyn_cast<MDString>(entry->getOperand(1));
    const auto *value =
        mdconst::dyn_extract_or_null<ConstantInt>(entry->getOperand(2));
    if (what && what->getString() == "kernel" && value && value->isOne())
      return true;
  }
  return false;
}

// A phi of generic pointers with a null among its incoming values, every
// other one pointing into an argument of the kernel.
bool nullBesideArguments(const PHINode &phi) {
  const auto *type = dyn_cast<PointerType>(phi.getType());
  if (!type || type->getAddressSpace() != GenericAddressSpace)
    return false;
  bool hasNull = false, hasArgument = false;
  for (const Value *in : phi.incoming_values()) {
    if (isa<ConstantPointerNull>(in)) {
      hasNull = true;
      continue;
    }
    if (!isa<Argument>(getUnderlyingObject(in)))
      return false;
    hasArgument = true;
  }
  return hasNull && hasArgument;
}

} // namespace

PreservedAnalyses GlobalNullPass::run(Function &f, FunctionAnalysisManager &) {
  if (f.isDeclaration() ||
      !Triple(f.getParent()->getTargetTriple()).isNVPTX() || !isKernel(f))
    return PreservedAnalyses::all();
  bool changed = false;
  for (BasicBlock &block : f)
    for (PHINode &phi : block.phis()) {
      if (!nullBesideArguments(phi))
        continue;
      Constant *globalNull = ConstantExpr::getAddrSpaceCast(
          ConstantPointerNull::get(
              PointerType::get(f.getContext(), GlobalAddressSpace)),
          phi.getType());
      for (Use &in : phi.incoming_values())
        if (isa<ConstantPointerNull>(in.get()))
          in.set(globalNull);
      changed = true;
    }
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}

} // namespace rcplugin
