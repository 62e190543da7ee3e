#include "GlobalNullPass.h"

#include "NvvmAnnotations.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace rcplugin {
namespace {

constexpr unsigned GenericAddressSpace = 0;
constexpr unsigned GlobalAddressSpace = 1;

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
