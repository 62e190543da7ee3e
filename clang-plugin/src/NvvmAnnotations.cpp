#include "NvvmAnnotations.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace rcplugin {

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

} // namespace rcplugin
