#include "ThreadLocalAsmPass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace rcplugin {
namespace {

// PTX opcodes (the part before the first '.') that read and write only the
// executing thread's registers and memory. Deliberately absent: barriers,
// shuffles, votes, warp matrix operations (mma, ldmatrix, ...), redux,
// match, elect, activemask, atomics, fences, asynchronous copies, branches,
// calls and anything else; they keep `convergent`.
const StringSet<> &threadLocalOpcodes() {
  static const StringSet<> set = {
      // integer and floating-point arithmetic
      "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs",
      "neg", "min", "max", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2",
      "ex2", "tanh", "copysign", "testp", "dp4a", "dp2a",
      // bit manipulation
      "and", "or", "xor", "not", "cnot", "lop3", "shl", "shr", "shf", "prmt",
      "popc", "clz", "brev", "bfind", "bfe", "bfi", "fns",
      // comparison and selection
      "set", "setp", "selp", "slct",
      // SIMD video instructions
      "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vset", "vadd2", "vsub2",
      "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4",
      "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4",
      // moves, conversions, the thread's own loads and stores
      "mov", "cvt", "cvta", "ld", "st", "prefetch"};
  return set;
}

// The opcode of one PTX statement, without its guard predicate
// ("@%p1 add.s32 ..." or "@%p1\tadd.s32 ..." -> "add"), or "" for
// declarations and labels. A guard with nothing after it gives "@", which
// no list holds.
StringRef opcodeOf(StringRef stmt) {
  stmt = stmt.trim();
  if (stmt.consume_front("@")) {
    stmt = stmt.drop_until([](char c) { return llvm::isSpace(c); }).ltrim();
    if (stmt.empty())
      return "@";
  }
  if (stmt.empty() || stmt.starts_with(".") || stmt.ends_with(":"))
    return "";
  return stmt.take_until([](char c) { return c == '.' || llvm::isSpace(c); });
}

} // namespace

bool isThreadLocalPtx(StringRef asmText) {
  SmallVector<StringRef, 8> stmts;
  asmText.split(stmts, ';');
  bool sawInstruction = false;
  for (StringRef stmt : stmts) {
    // Scopes ({ ... }) and line breaks separate statements too.
    SmallVector<StringRef, 4> pieces;
    stmt.split(pieces, '\n');
    for (StringRef piece : pieces) {
      piece = piece.trim().trim("{}").trim();
      // A label on the same line as its instruction ("L1: add ...").
      if (piece.contains(':') && !piece.ends_with(":"))
        return false;
      StringRef op = opcodeOf(piece);
      if (op.empty())
        continue;
      if (!threadLocalOpcodes().contains(op))
        return false;
      sawInstruction = true;
    }
  }
  return sawInstruction;
}

PreservedAnalyses ThreadLocalAsmPass::run(Module &m, ModuleAnalysisManager &) {
  if (!Triple(m.getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  bool changed = false;
  for (Function &f : m) {
    for (Instruction &inst : instructions(f)) {
      auto *call = dyn_cast<CallInst>(&inst);
      if (!call || !call->isInlineAsm() ||
          !call->hasFnAttr(Attribute::Convergent))
        continue;
      auto *asmCall = cast<InlineAsm>(call->getCalledOperand());
      if (!isThreadLocalPtx(asmCall->getAsmString()))
        continue;
      call->removeFnAttr(Attribute::Convergent);
      changed = true;
    }
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace rcplugin
