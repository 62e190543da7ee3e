#include "LoopRematPass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace rcplugin {
namespace {

// 32-bit registers of live-in values (1.5 times the 255 a thread may have)
// above which a loop is considered: ptxas recomputes some hoisted values
// itself, and below this it coped in every llama.cpp kernel measured (the
// vector flash-attention kernels of decode stay untouched); the tensor-core
// flash-attention loops that spilled are far above it. 0 turns the pass
// off (the driver's --rc-no-loop-remat, for A/B builds).
cl::opt<unsigned> rematBudget(
    "rc-loop-remat-budget", cl::init(384),
    cl::desc("remote-clang: recompute cheap invariants inside device loops "
             "whose live-ins need more 32-bit registers than this (0: off)"));

using ValueSet = SmallSetVector<Value *, 32>;

// NVPTX address spaces (NVPTXAddrSpace in the target's headers, which an
// out-of-tree plugin cannot include).
constexpr unsigned GenericAddressSpace = 0;
constexpr unsigned SharedAddressSpace = 3;

// 32-bit registers a value occupies; predicates live in their own file.
unsigned registersOf(const Value *v, const DataLayout &dl) {
  Type *t = v->getType();
  if (t->isIntOrIntVectorTy(1))
    return 0;
  return (dl.getTypeSizeInBits(t).getFixedValue() + 31) / 32;
}

unsigned registersOf(const ValueSet &values, const DataLayout &dl) {
  unsigned n = 0;
  for (const Value *v : values)
    n += registersOf(v, dl);
  return n;
}

// Integer and address arithmetic that costs an instruction or two to
// recompute: what LICM hoists out of loops as addresses. Divisions,
// floating point, loads and calls are not recomputed.
bool isCheap(const Instruction *inst) {
  if (const auto *bin = dyn_cast<BinaryOperator>(inst)) {
    switch (bin->getOpcode()) {
    case Instruction::UDiv:
    case Instruction::SDiv:
    case Instruction::URem:
    case Instruction::SRem:
      return false;
    default:
      return bin->getType()->isIntegerTy();
    }
  }
  if (const auto *cast = dyn_cast<CastInst>(inst)) {
    switch (cast->getOpcode()) {
    case Instruction::Trunc:
    case Instruction::ZExt:
    case Instruction::SExt:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
    case Instruction::AddrSpaceCast:
      return true;
    case Instruction::BitCast:
      return !cast->getType()->isFPOrFPVectorTy();
    default:
      return false;
    }
  }
  return isa<GetElementPtrInst>(inst);
}

// A value the loop needs in a register at its header: defined outside the
// loop (arguments are parameter-space loads ptxas re-issues; constants are
// immediates) and used inside it.
bool livesInto(const Value *v, const Loop &loop) {
  const auto *inst = dyn_cast<Instruction>(v);
  return inst && !loop.contains(inst);
}

// Values outside `loop` that its instructions use, and its header phis.
ValueSet liveIns(const Loop &loop) {
  ValueSet in;
  for (PHINode &phi : loop.getHeader()->phis())
    in.insert(&phi);
  for (BasicBlock *block : loop.blocks())
    for (Instruction &inst : *block)
      for (Value *op : inst.operands())
        if (livesInto(op, loop))
          in.insert(op);
  return in;
}

// The cheap instructions `root` is computed from outside the loop (root
// included), and the values those are computed from (the leaves).
void expand(Instruction *root, const Loop &loop, ValueSet &cheap,
            ValueSet &leaves) {
  SmallVector<Instruction *, 16> work{root};
  while (!work.empty()) {
    Instruction *inst = work.pop_back_val();
    if (!cheap.insert(inst))
      continue;
    for (Value *op : inst->operands()) {
      auto *def = dyn_cast<Instruction>(op);
      if (!def || loop.contains(def))
        continue;
      if (isCheap(def))
        work.push_back(def);
      else
        leaves.insert(def);
    }
  }
}

// The block a use happens in: a phi uses its value at the end of the
// incoming block.
BasicBlock *useBlock(const Use &use) {
  auto *user = cast<Instruction>(use.getUser());
  if (auto *phi = dyn_cast<PHINode>(user))
    return phi->getIncomingBlock(use);
  return user->getParent();
}

// The first instruction of `block` that uses `value` (the terminator for a
// phi's incoming value): where one clone serves every use in the block.
Instruction *firstUseIn(BasicBlock *block, Value *value) {
  for (Instruction &inst : *block)
    if (!isa<PHINode>(inst) && is_contained(inst.operand_values(), value))
      return &inst;
  return block->getTerminator();
}

// Replaces every use of `inst` inside `loop` with a copy made in the using
// block. Returns whether it made any.
bool cloneIntoLoop(Instruction *inst, const Loop &loop) {
  DenseMap<BasicBlock *, SmallVector<Use *, 4>> usesByBlock;
  for (Use &use : inst->uses()) {
    BasicBlock *block = useBlock(use);
    if (loop.contains(block))
      usesByBlock[block].push_back(&use);
  }
  for (auto &[block, uses] : usesByBlock) {
    Instruction *copy = inst->clone();
    copy->setName(inst->getName() + ".remat");
    copy->insertBefore(firstUseIn(block, inst));
    for (Use *use : uses)
      use->set(copy);
  }
  return !usesByBlock.empty();
}

// Whether the cheap instructions of one expression convert a shared-memory
// pointer to a generic one (an instruction or a constant expression).
bool castsSharedToGeneric(const ValueSet &cheap) {
  for (const Value *v : cheap)
    for (const Value *op : cast<Instruction>(v)->operand_values())
      if (const auto *cast = dyn_cast<AddrSpaceCastOperator>(op))
        if (cast->getSrcAddressSpace() == SharedAddressSpace &&
            cast->getDestAddressSpace() == GenericAddressSpace)
          return true;
  return false;
}

bool rematerialize(Loop &loop, const DataLayout &dl) {
  ValueSet in = liveIns(loop);
  unsigned before = registersOf(in, dl);
  if (before <= rematBudget)
    return false;

  // The invariants worth recomputing: generic addresses of shared memory
  // (two registers each where the shared offset they come from needs one).
  // ptxas copes with the other hoisted arithmetic (llama.cpp's mmq kernels
  // hold as much and do not spill); recomputing that too only added
  // instructions to their inner loops.
  ValueSet cheap, leaves;
  for (Value *v : in) {
    auto *inst = cast<Instruction>(v);
    if (isa<PHINode>(inst) || !isCheap(inst))
      continue;
    ValueSet tree, treeLeaves;
    expand(inst, loop, tree, treeLeaves);
    if (!castsSharedToGeneric(tree))
      continue;
    cheap.insert(tree.begin(), tree.end());
    leaves.insert(treeLeaves.begin(), treeLeaves.end());
  }
  if (cheap.empty())
    return false;
  ValueSet after;
  for (Value *v : in)
    if (!cheap.contains(v))
      after.insert(v);
  after.insert(leaves.begin(), leaves.end());
  if (registersOf(after, dl) >= before)
    return false;

  // A copy made inside the loop uses the original's operands there, which
  // may be cheap invariants in turn: repeat until none is used inside.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Value *v : cheap)
      changed |= cloneIntoLoop(cast<Instruction>(v), loop);
  }
  // Drop the originals nothing outside the loop needs.
  SmallVector<WeakTrackingVH, 32> originals(cheap.begin(), cheap.end());
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(originals);
  return true;
}

} // namespace

PreservedAnalyses LoopRematPass::run(Function &f,
                                     FunctionAnalysisManager &fam) {
  if (rematBudget == 0 || f.isDeclaration() ||
      !Triple(f.getParent()->getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  LoopInfo &loops = fam.getResult<LoopAnalysis>(f);
  const DataLayout &dl = f.getParent()->getDataLayout();
  bool changed = false;
  // Outer loops first: what moves into an outer loop's body may then be an
  // invariant of an inner one.
  for (Loop *top : loops)
    for (Loop *loop : depth_first(top))
      changed |= rematerialize(*loop, dl);
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}

} // namespace rcplugin
