#include "ArrayIndexSelectPass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Scalar/SROA.h"

using namespace llvm;

namespace rcplugin {
namespace {

constexpr uint64_t kMaxElements = 8;

// `array[0][index]` with a run-time index.
bool isDynamicElement(const GetElementPtrInst &gep, const ArrayType *array) {
  if (gep.getSourceElementType() != array || gep.getNumIndices() != 2 ||
      gep.hasAllConstantIndices())
    return false;
  const auto *first = dyn_cast<ConstantInt>(gep.getOperand(1));
  return first && first->isZero();
}

// A use SROA can promote: a load, a store to (not of) the pointer, a
// lifetime marker.
bool isPlainAccess(const User *user, const Value *ptr) {
  if (const auto *load = dyn_cast<LoadInst>(user))
    return !load->isVolatile();
  if (const auto *store = dyn_cast<StoreInst>(user))
    return !store->isVolatile() && store->getValueOperand() != ptr;
  if (const auto *marker = dyn_cast<IntrinsicInst>(user))
    return marker->isLifetimeStartOrEnd();
  return false;
}

// The loads at a run-time index of a small array alloca, when every other
// access to it is a plain one at a constant offset; empty otherwise.
SmallVector<LoadInst *, 4> dynamicLoads(AllocaInst &alloca) {
  SmallVector<LoadInst *, 4> loads;
  const auto *array = dyn_cast<ArrayType>(alloca.getAllocatedType());
  if (!array || alloca.isArrayAllocation() || array->getNumElements() < 2 ||
      array->getNumElements() > kMaxElements ||
      !array->getElementType()->isSingleValueType())
    return {};
  for (User *user : alloca.users()) {
    auto *gep = dyn_cast<GetElementPtrInst>(user);
    if (gep && isDynamicElement(*gep, array)) {
      for (User *access : gep->users()) {
        auto *load = dyn_cast<LoadInst>(access);
        if (!load || load->isVolatile() ||
            load->getType() != array->getElementType())
          return {};
        loads.push_back(load);
      }
      continue;
    }
    if (gep && gep->hasAllConstantIndices()) {
      for (User *access : gep->users())
        if (!isPlainAccess(access, gep))
          return {};
      continue;
    }
    if (!isPlainAccess(user, &alloca))
      return {};
  }
  return loads;
}

// element[index] as loads of every element and selects on the index (an
// index out of range was undefined: it reads the last element here).
void replaceWithSelects(AllocaInst &alloca, LoadInst &load) {
  auto *array = cast<ArrayType>(alloca.getAllocatedType());
  Type *element = array->getElementType();
  auto *gep = cast<GetElementPtrInst>(load.getPointerOperand());
  Value *index = gep->getOperand(2);
  const DataLayout &dl = alloca.getModule()->getDataLayout();
  uint64_t stride = dl.getTypeAllocSize(element);
  IRBuilder<> b(&load);
  Value *value = nullptr;
  for (uint64_t k = 0; k < array->getNumElements(); ++k) {
    Value *ptr = b.CreateConstInBoundsGEP2_64(array, &alloca, 0, k);
    LoadInst *part = b.CreateAlignedLoad(
        element, ptr, commonAlignment(alloca.getAlign(), k * stride));
    part->copyMetadata(load);
    if (!value) {
      value = part;
      continue;
    }
    Value *isK = b.CreateICmpEQ(index, ConstantInt::get(index->getType(), k));
    value = b.CreateSelect(isK, part, value);
  }
  value->takeName(&load);
  load.replaceAllUsesWith(value);
  load.eraseFromParent();
  if (gep->use_empty())
    gep->eraseFromParent();
}

} // namespace

PreservedAnalyses ArrayIndexSelectPass::run(Function &f,
                                            FunctionAnalysisManager &fam) {
  if (f.isDeclaration() || !Triple(f.getParent()->getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  bool changed = false;
  SmallVector<AllocaInst *, 8> allocas;
  for (Instruction &inst : instructions(f))
    if (auto *alloca = dyn_cast<AllocaInst>(&inst))
      allocas.push_back(alloca);
  for (AllocaInst *alloca : allocas)
    for (LoadInst *load : dynamicLoads(*alloca)) {
      replaceWithSelects(*alloca, *load);
      changed = true;
    }
  if (!changed)
    return PreservedAnalyses::all();
  // The optimizer's own SROA ran before this pass: run it again on what
  // changed, so the arrays become registers.
  fam.invalidate(f, PreservedAnalyses::none());
  SROAPass(SROAOptions::PreserveCFG).run(f, fam);
  return PreservedAnalyses::none();
}

} // namespace rcplugin
