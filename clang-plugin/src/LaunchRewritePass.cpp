#include "LaunchRewritePass.h"

#include "TuSalt.h"

#include "rc/kernel_id.h"
#include "rc/launch_abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace rcplugin {
namespace {

struct Rewrite {
  const char *entry = nullptr; // runtime entry point
  unsigned kernelArg = 0;      // operand that holds the stub
};

// The C launch functions the contract covers.
Rewrite classifyRuntimeCall(StringRef name) {
  return StringSwitch<Rewrite>(name)
      .Case("cudaLaunchKernel", {RC_LAUNCH_ENTRY, 0})
      .Case("cudaLaunchKernel_ptsz", {RC_LAUNCH_ENTRY_PTSZ, 0})
      .Case("cudaLaunchCooperativeKernel", {RC_LAUNCH_COOPERATIVE_ENTRY, 0})
      .Case("cudaLaunchKernelExC", {RC_LAUNCH_EX_ENTRY, 1})
      .Default({});
}

// cuda_runtime.h's C++ wrappers `template <class T> cudaError_t
// cudaLaunchKernel(const T *func, dim3, dim3, void **, size_t, cudaStream_t)`
// (and the cooperative one) forward to the C function unchanged. At -O0 they
// are not inlined, so the stub constant only appears at the call of the
// wrapper: rewrite that call when the wrapper has the C function's exact
// IR type. Mangled as _Z[L]<len><name>I...
Rewrite classifyTemplateWrapper(const Module &m, const Function &f) {
  StringRef s = f.getName();
  if (!s.consume_front("_Z"))
    return {};
  s.consume_front("L");
  size_t len = 0;
  if (s.consumeInteger(10, len) || s.size() <= len || s[len] != 'I')
    return {};
  StringRef base = s.take_front(len);
  Rewrite r = classifyRuntimeCall(base);
  if (!r.entry || r.kernelArg != 0)
    return {};
  const Function *c = m.getFunction(base);
  if (!c || c->getFunctionType() != f.getFunctionType())
    return {};
  return r;
}

// stub function -> device-side name, from the module constructor's
// __cudaRegisterFunction(handle, stub, deviceName, deviceName, ...) calls.
DenseMap<const Function *, std::string> registeredStubs(Module &m) {
  DenseMap<const Function *, std::string> out;
  Function *reg = m.getFunction("__cudaRegisterFunction");
  if (!reg)
    return out;
  for (User *u : reg->users()) {
    auto *call = dyn_cast<CallBase>(u);
    if (!call || call->getCalledOperand() != reg || call->arg_size() < 3)
      continue;
    auto *stub =
        dyn_cast<Function>(call->getArgOperand(1)->stripPointerCasts());
    auto *nameVar =
        dyn_cast<GlobalVariable>(call->getArgOperand(2)->stripPointerCasts());
    if (!stub || !nameVar || !nameVar->hasInitializer())
      continue;
    auto *data = dyn_cast<ConstantDataSequential>(nameVar->getInitializer());
    if (!data || !data->isCString())
      continue;
    out[stub] = data->getAsCString().str();
  }
  return out;
}

// Replaces `call F(..., stub, ...)` with `call entry(..., i64 id, ...)`,
// same operands otherwise, keeping calling convention and attributes.
void rewriteCall(CallBase *cb, const Rewrite &r, uint64_t id) {
  Module &m = *cb->getModule();
  LLVMContext &ctx = m.getContext();
  Type *i64 = Type::getInt64Ty(ctx);
  FunctionType *oldTy = cb->getFunctionType();
  SmallVector<Type *, 8> params(oldTy->params().begin(), oldTy->params().end());
  params[r.kernelArg] = i64;
  FunctionType *newTy =
      FunctionType::get(oldTy->getReturnType(), params, oldTy->isVarArg());
  FunctionCallee entry = m.getOrInsertFunction(r.entry, newTy);

  SmallVector<Value *, 8> args(cb->args());
  args[r.kernelArg] = ConstantInt::get(i64, id);
  SmallVector<OperandBundleDef, 1> bundles;
  cb->getOperandBundlesAsDefs(bundles);

  CallBase *repl;
  if (auto *inv = dyn_cast<InvokeInst>(cb))
    repl = InvokeInst::Create(entry, inv->getNormalDest(), inv->getUnwindDest(),
                              args, bundles, "", cb->getIterator());
  else
    repl = CallInst::Create(entry, args, bundles, "", cb->getIterator());
  // Pointer attributes (nonnull, align...) do not apply to the i64 ID.
  AttributeList attrs =
      cb->getAttributes().removeParamAttributes(ctx, r.kernelArg);
  repl->setAttributes(attrs);
  repl->setCallingConv(cb->getCallingConv());
  repl->setDebugLoc(cb->getDebugLoc());
  if (auto *ci = dyn_cast<CallInst>(cb))
    cast<CallInst>(repl)->setTailCallKind(ci->getTailCallKind());
  repl->takeName(cb);
  cb->replaceAllUsesWith(repl);
  cb->eraseFromParent();
}

} // namespace

PreservedAnalyses LaunchRewritePass::run(Module &m, ModuleAnalysisManager &) {
  Triple triple(m.getTargetTriple());
  if (triple.isNVPTX() || triple.isAMDGPU())
    return PreservedAnalyses::all();
  DenseMap<const Function *, std::string> stubs = registeredStubs(m);
  if (stubs.empty())
    return PreservedAnalyses::all();
  std::string salt = tuSalt(m.getSourceFileName());

  struct Pending {
    CallBase *call;
    Rewrite rewrite;
    uint64_t id;
  };
  SmallVector<Pending, 16> work;
  for (Function &f : m) {
    for (Instruction &inst : instructions(f)) {
      auto *cb = dyn_cast<CallBase>(&inst);
      if (!cb)
        continue;
      auto *callee =
          dyn_cast<Function>(cb->getCalledOperand()->stripPointerCasts());
      if (!callee)
        continue;
      Rewrite r = classifyRuntimeCall(callee->getName());
      if (!r.entry)
        r = classifyTemplateWrapper(m, *callee);
      if (!r.entry || cb->arg_size() <= r.kernelArg ||
          !cb->getArgOperand(r.kernelArg)->getType()->isPointerTy())
        continue;
      auto *stub = dyn_cast<Function>(
          cb->getArgOperand(r.kernelArg)->stripPointerCasts());
      auto it = stub ? stubs.find(stub) : stubs.end();
      if (it == stubs.end())
        continue; // not a known kernel: the runtime's stub table handles it
      uint64_t id = rc::symbolId(it->second, stub->hasLocalLinkage(), salt);
      work.push_back({cb, r, id});
    }
  }
  for (const Pending &p : work)
    rewriteCall(p.call, p.rewrite, p.id);
  return work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

} // namespace rcplugin
