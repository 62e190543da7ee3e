#include "HalfPairPass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
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

// The bits of a finite float constant converted by CUDA's __float2half
// asm ("{  cvt.rn.f16.f32 %0, %1;}": round to nearest even), or null.
Constant *foldedConversion(CallInst &call) {
  const auto *asmCall = dyn_cast<InlineAsm>(call.getCalledOperand());
  if (!asmCall || call.arg_size() != 1 || !call.getType()->isIntegerTy(16) ||
      asmCall->getConstraintString() != "=h,f")
    return nullptr;
  StringRef text = StringRef(asmCall->getAsmString()).trim().trim("{}").trim();
  const auto *value = dyn_cast<ConstantFP>(call.getArgOperand(0));
  if (text != "cvt.rn.f16.f32 $0, $1;" || !value ||
      !value->getValueAPF().isFinite())
    return nullptr;
  APFloat half = value->getValueAPF();
  bool lost;
  half.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
  return ConstantInt::get(call.getType(), half.bitcastToAPInt());
}

// Replaces conversions of constants with their result, as nvcc's headers
// (builtins, not asm) let it fold them: a half2 {0, 0} is then a constant.
bool foldConstantConversions(Function &f) {
  SmallVector<std::pair<CallInst *, Constant *>, 16> folds;
  for (Instruction &inst : instructions(f))
    if (auto *call = dyn_cast<CallInst>(&inst))
      if (Constant *c = foldedConversion(*call))
        folds.push_back({call, c});
  for (auto &[call, c] : folds) {
    call->replaceAllUsesWith(c);
    call->eraseFromParent();
  }
  return !folds.empty();
}

} // namespace

PreservedAnalyses HalfPairPass::run(Function &f, FunctionAnalysisManager &) {
  if (f.isDeclaration() || !Triple(f.getParent()->getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  bool folded = foldConstantConversions(f);
  SmallVector<HalfPair, 64> pairs;
  for (Instruction &inst : instructions(f)) {
    HalfPair pair;
    if (matchPair(inst, pair))
      pairs.push_back(pair);
  }
  if (pairs.empty() && !folded)
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
