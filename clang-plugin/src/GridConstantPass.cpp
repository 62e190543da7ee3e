#include "GridConstantPass.h"

#include "NvvmAnnotations.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <string>

using namespace llvm;

namespace rcplugin {
namespace {

// llvm.var.annotation(ptr value, ptr annotation, ptr file, i32 line, ptr)
bool isGridConstantAnnotation(const CallInst &call) {
  const auto *text =
      dyn_cast<GlobalVariable>(call.getArgOperand(1)->stripPointerCasts());
  if (!text || !text->hasInitializer())
    return false;
  const auto *data = dyn_cast<ConstantDataSequential>(text->getInitializer());
  return data && data->isCString() &&
         data->getAsCString() == GridConstantAnnotation;
}

// Whether `v` is only read through: loads, and address arithmetic that
// leads only to loads. The backend turns those into param-space loads.
bool onlyLoaded(const Value &v) {
  for (const User *user : v.users()) {
    if (isa<LoadInst>(user))
      continue;
    if ((isa<GetElementPtrInst>(user) || isa<BitCastInst>(user)) &&
        onlyLoaded(*user))
      continue;
    return false;
  }
  return true;
}

// The backend names a kernel's parameters <symbol>_param_<n>; a name that
// is a PTX identifier as it stands is the symbol (clang's mangled names
// are).
bool isPtxIdentifier(StringRef name) {
  return !name.empty() && !isDigit(name.front()) && all_of(name, [](char c) {
    return isAlnum(c) || c == '_' || c == '$';
  });
}

// Gives every use of the by-value parameter `arg` other than a chain of
// loads its generic address in the parameter space.
void keepInParamSpace(Argument &arg) {
  SmallVector<Use *, 8> escaping;
  for (Use &use : arg.uses()) {
    User *user = use.getUser();
    if (isa<LoadInst>(user) ||
        ((isa<GetElementPtrInst>(user) || isa<BitCastInst>(user)) &&
         onlyLoaded(*user)))
      continue;
    escaping.push_back(&use);
  }
  if (escaping.empty())
    return;
  Function &kernel = *arg.getParent();
  std::string ptx = "mov.b64 $0, " + kernel.getName().str() + "_param_" +
                    std::to_string(arg.getArgNo()) +
                    ";\n\tcvta.param.u64 $0, $0;";
  auto *type = FunctionType::get(arg.getType(), /*isVarArg=*/false);
  InlineAsm *address =
      InlineAsm::get(type, ptx, "=l", /*hasSideEffects=*/false);
  IRBuilder<> builder(&*kernel.getEntryBlock().getFirstInsertionPt());
  Value *generic = builder.CreateCall(address, {}, arg.getName() + ".param");
  for (Use *use : escaping)
    use->set(generic);
}

} // namespace

PreservedAnalyses GridConstantPass::run(Module &m, ModuleAnalysisManager &) {
  if (!Triple(m.getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  SmallVector<CallInst *, 8> calls;
  for (Function &f : m)
    if (f.getIntrinsicID() == Intrinsic::var_annotation)
      for (User *user : f.users())
        if (auto *call = dyn_cast<CallInst>(user);
            call && call->getCalledFunction() == &f &&
            isGridConstantAnnotation(*call))
          calls.push_back(call);
  if (calls.empty())
    return PreservedAnalyses::all();
  SmallVector<Argument *, 8> parameters;
  for (CallInst *call : calls) {
    auto *arg = dyn_cast<Argument>(call->getArgOperand(0)->stripPointerCasts());
    call->eraseFromParent();
    if (arg && arg->hasByValAttr() && isKernel(*arg->getParent()) &&
        isPtxIdentifier(arg->getParent()->getName()) &&
        !is_contained(parameters, arg))
      parameters.push_back(arg);
  }
  for (Argument *arg : parameters)
    keepInParamSpace(*arg);
  return PreservedAnalyses::none();
}

} // namespace rcplugin
