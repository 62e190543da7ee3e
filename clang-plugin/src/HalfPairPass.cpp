#include "HalfPairPass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace rcplugin {
namespace {

struct HalfPair {
  Instruction *packed; // the i32 computed from the two halves
  Value *lo, *hi;      // the i16 halves (bits 0-15, bits 16-31)
};

bool isHalfWord(const Value *v) { return v->getType()->isIntegerTy(16); }

// (zext hi) << 16 | zext lo, in either operand order, or zext x * 65537
// (both halves x).
bool matchPair(Instruction &inst, HalfPair &pair) {
  if (!inst.getType()->isIntegerTy(32))
    return false;
  Value *lo, *hi;
  if (match(&inst, m_c_Or(m_Shl(m_ZExt(m_Value(hi)), m_SpecificInt(16)),
                          m_ZExt(m_Value(lo)))) &&
      isHalfWord(lo) && isHalfWord(hi)) {
    pair = {&inst, lo, hi};
    return true;
  }
  if (match(&inst, m_Mul(m_ZExt(m_Value(lo)), m_SpecificInt(65537))) &&
      isHalfWord(lo)) {
    pair = {&inst, lo, lo};
    return true;
  }
  return false;
}

} // namespace

PreservedAnalyses HalfPairPass::run(Function &f, FunctionAnalysisManager &) {
  if (f.isDeclaration() || !Triple(f.getParent()->getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  SmallVector<HalfPair, 64> pairs;
  for (Instruction &inst : instructions(f)) {
    HalfPair pair;
    if (matchPair(inst, pair))
      pairs.push_back(pair);
  }
  if (pairs.empty())
    return PreservedAnalyses::all();
  auto *halves = FixedVectorType::get(Type::getInt16Ty(f.getContext()), 2);
  for (HalfPair &pair : pairs) {
    IRBuilder<> b(pair.packed);
    Value *v =
        b.CreateInsertElement(PoisonValue::get(halves), pair.lo, uint64_t(0));
    v = b.CreateInsertElement(v, pair.hi, uint64_t(1));
    Value *packed = b.CreateBitCast(v, pair.packed->getType());
    packed->takeName(pair.packed);
    pair.packed->replaceAllUsesWith(packed);
    RecursivelyDeleteTriviallyDeadInstructions(pair.packed);
  }
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}

} // namespace rcplugin
