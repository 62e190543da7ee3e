#include "WideCopyPass.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

using namespace llvm;

namespace rcplugin {
namespace {

constexpr uint64_t kVectorBytes = 16; // one ld.v4.u32 / st.v4.u32
constexpr uint64_t kMaxBytes = 64;    // larger copies and arrays stay as is
constexpr unsigned GlobalAddressSpace = 1;

// The copy's length when it qualifies: constant, a multiple of 16 bytes up
// to 64, both ends 16-byte aligned, not volatile. 0 otherwise.
uint64_t wideCopyBytes(const MemCpyInst &copy) {
  const auto *len = dyn_cast<ConstantInt>(copy.getLength());
  if (!len || copy.isVolatile())
    return 0;
  uint64_t n = len->getZExtValue();
  if (n == 0 || n % kVectorBytes || n > kMaxBytes)
    return 0;
  if (copy.getDestAlign().valueOrOne().value() < kVectorBytes ||
      copy.getSourceAlign().valueOrOne().value() < kVectorBytes)
    return 0;
  return n;
}

// What a small alloca holds when every write to it stores a constant: its
// bytes (never written ones 0: reading them was undefined) and the writes
// and lifetime markers to drop with it.
struct ConstantArray {
  SmallVector<uint8_t, kMaxBytes> bytes;
  SmallVector<bool, kMaxBytes> written;
  SmallVector<Instruction *, 16> writes;
};

// Records `value`'s bytes at `offset`; false if it is no scalar constant,
// falls outside the array, or disagrees with an earlier write.
bool recordConstant(ConstantArray &out, const Constant *value, int64_t offset,
                    const DataLayout &dl) {
  APInt bits;
  if (const auto *ci = dyn_cast<ConstantInt>(value))
    bits = ci->getValue();
  else if (const auto *cf = dyn_cast<ConstantFP>(value))
    bits = cf->getValueAPF().bitcastToAPInt();
  else
    return false;
  uint64_t size = dl.getTypeStoreSize(value->getType());
  if (offset < 0 || offset + size > out.bytes.size() || bits.getBitWidth() % 8)
    return false;
  for (uint64_t i = 0; i < size; ++i) {
    uint8_t byte = uint8_t(bits.extractBitsAsZExtValue(8, 8 * i));
    if (out.written[offset + i] && out.bytes[offset + i] != byte)
      return false;
    out.bytes[offset + i] = byte;
    out.written[offset + i] = true;
  }
  return true;
}

// Follows every use of a pointer into the alloca (`offset` from its start,
// none once a phi or select merged it with other pointers, through which
// only reads may go).
bool followUses(ConstantArray &out, Value *ptr, std::optional<int64_t> offset,
                const DataLayout &dl, SmallPtrSetImpl<Value *> &seen) {
  if (!seen.insert(ptr).second)
    return true;
  for (User *user : ptr->users()) {
    auto *inst = dyn_cast<Instruction>(user);
    if (!inst)
      return false;
    if (isa<LoadInst>(inst))
      continue;
    if (auto *store = dyn_cast<StoreInst>(inst)) {
      const auto *value = dyn_cast<Constant>(store->getValueOperand());
      if (store->getValueOperand() == ptr || !offset || !value ||
          store->isVolatile() || !recordConstant(out, value, *offset, dl))
        return false;
      out.writes.push_back(store);
      continue;
    }
    if (auto *copy = dyn_cast<MemCpyInst>(inst)) {
      if (copy->getRawDest() == ptr)
        return false;
      continue;
    }
    if (auto *marker = dyn_cast<IntrinsicInst>(inst)) {
      if (!marker->isLifetimeStartOrEnd())
        return false;
      out.writes.push_back(marker);
      continue;
    }
    if (auto *gep = dyn_cast<GetElementPtrInst>(inst)) {
      APInt delta(dl.getIndexTypeSizeInBits(gep->getType()), 0);
      if (!gep->accumulateConstantOffset(dl, delta))
        return false;
      std::optional<int64_t> next;
      if (offset)
        next = *offset + delta.getSExtValue();
      if (!followUses(out, gep, next, dl, seen))
        return false;
      continue;
    }
    if (isa<PHINode>(inst) ||
        (isa<SelectInst>(inst) && inst->getOperand(0) != ptr)) {
      if (!followUses(out, inst, std::nullopt, dl, seen))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

std::optional<ConstantArray> constantArray(AllocaInst &alloca,
                                           const DataLayout &dl) {
  std::optional<TypeSize> size = alloca.getAllocationSize(dl);
  if (!size || size->isScalable() || size->getFixedValue() > kMaxBytes)
    return std::nullopt;
  ConstantArray out;
  out.bytes.assign(size->getFixedValue(), 0);
  out.written.assign(size->getFixedValue(), false);
  SmallPtrSet<Value *, 16> seen;
  if (!followUses(out, &alloca, 0, dl, seen))
    return std::nullopt;
  return out;
}

// The allocas a copy may read from: through phis and selects.
void allocasBehind(Value *ptr, SmallPtrSetImpl<Value *> &seen,
                   SmallVectorImpl<AllocaInst *> &found) {
  if (!seen.insert(ptr).second)
    return;
  if (auto *alloca = dyn_cast<AllocaInst>(ptr))
    found.push_back(alloca);
  else if (auto *phi = dyn_cast<PHINode>(ptr))
    for (Value *in : phi->incoming_values())
      allocasBehind(in, seen, found);
  else if (auto *select = dyn_cast<SelectInst>(ptr)) {
    allocasBehind(select->getTrueValue(), seen, found);
    allocasBehind(select->getFalseValue(), seen, found);
  }
}

// Replaces a constant-filled alloca with a 16-byte aligned constant global.
void replaceWithGlobal(AllocaInst &alloca, ConstantArray &contents) {
  Module &m = *alloca.getModule();
  Constant *init = ConstantDataArray::get(m.getContext(), contents.bytes);
  auto *global = new GlobalVariable(
      m, init->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage,
      init, "rc.const.array", nullptr, GlobalValue::NotThreadLocal,
      GlobalAddressSpace);
  global->setAlignment(Align(kVectorBytes));
  global->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  for (Instruction *write : contents.writes)
    write->eraseFromParent();
  alloca.replaceAllUsesWith(
      ConstantExpr::getAddrSpaceCast(global, alloca.getType()));
  alloca.eraseFromParent();
}

void replaceWithVectors(MemCpyInst &copy, uint64_t n) {
  IRBuilder<> b(&copy);
  auto *v4 = FixedVectorType::get(b.getInt32Ty(), 4);
  const Align align(kVectorBytes);
  // Every load before any store: a memcpy's ends never overlap.
  SmallVector<Value *, 4> parts;
  for (uint64_t off = 0; off < n; off += kVectorBytes) {
    Value *src =
        b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy.getSource(), off);
    LoadInst *load = b.CreateAlignedLoad(v4, src, align);
    load->copyMetadata(copy,
                       {LLVMContext::MD_alias_scope, LLVMContext::MD_noalias});
    parts.push_back(load);
  }
  for (uint64_t i = 0; i < parts.size(); ++i) {
    Value *dst = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy.getDest(),
                                              i * kVectorBytes);
    StoreInst *store = b.CreateAlignedStore(parts[i], dst, align);
    store->copyMetadata(copy,
                        {LLVMContext::MD_alias_scope, LLVMContext::MD_noalias});
  }
  copy.eraseFromParent();
}

} // namespace

PreservedAnalyses WideCopyPass::run(Function &f, FunctionAnalysisManager &) {
  if (f.isDeclaration() || !Triple(f.getParent()->getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  const DataLayout &dl = f.getParent()->getDataLayout();
  SmallVector<std::pair<MemCpyInst *, uint64_t>, 32> copies;
  SmallVector<AllocaInst *, 8> allocas;
  SmallPtrSet<Value *, 32> seen;
  for (Instruction &inst : instructions(f))
    if (auto *copy = dyn_cast<MemCpyInst>(&inst))
      if (uint64_t n = wideCopyBytes(*copy)) {
        copies.push_back({copy, n});
        allocasBehind(copy->getSource(), seen, allocas);
      }
  for (AllocaInst *alloca : allocas)
    if (std::optional<ConstantArray> contents = constantArray(*alloca, dl))
      replaceWithGlobal(*alloca, *contents);
  for (auto &[copy, n] : copies)
    replaceWithVectors(*copy, n);
  if (copies.empty())
    return PreservedAnalyses::all();
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}

} // namespace rcplugin
