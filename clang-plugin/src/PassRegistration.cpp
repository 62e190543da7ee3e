// The LLVM pass-plugin entry point (-fpass-plugin=RcPlugin.so). The rewrite
// is registered at pipeline start, which every optimization level runs
// (including -O0), and again at the end of the optimizer: after inlining,
// launches made through cuda_runtime.h's variadic C++ wrappers
// (cudaLaunchKernelEx) see the stub as a constant too. Running twice is
// harmless: rewritten calls no longer match.
//
// In device modules, RdcStaticNamesPass, PureVirtualTrapPass,
// UsedExternalPass and GridConstantPass run first at pipeline start (the
// module is as clang emitted it; most have nothing for them to do), then
// ThreadLocalAsmPass, before the
// inliner copies __dp4a's asm into the loops the unroller looks at, and
// ArrayIndexSelectPass, LoopRematPass, HalfPairPass and WideCopyPass at the
// end, after the last LICM has hoisted what LoopRematPass undoes and the
// last instcombine has made the integer packing and the memcpys the last
// two rewrite (HalfPairPass's folded constants first: they make
// WideCopyPass's constant arrays). ArrayIndexSelectPass comes first: the
// arrays it puts in registers count in LoopRematPass's register estimate.
// GlobalNullPass last: no later pass folds its casts of null away.
//
// Each pass is also registered by name (rc-launch-rewrite, ...) for `opt
// -passes=...`: the lit tests in test/lit/passes run one pass on a small
// .ll file through RcPasses.so.
#include "ArrayIndexSelectPass.h"
#include "GlobalNullPass.h"
#include "GridConstantPass.h"
#include "HalfPairPass.h"
#include "LaunchRewritePass.h"
#include "LoopRematPass.h"
#include "PureVirtualTrapPass.h"
#include "RdcStaticNamesPass.h"
#include "ThreadLocalAsmPass.h"
#include "UsedExternalPass.h"
#include "WideCopyPass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "rcplugin", "1", [](PassBuilder &pb) {
            pb.registerPipelineParsingCallback(
                [](StringRef name, ModulePassManager &mpm,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (name == "rc-launch-rewrite")
                    mpm.addPass(rcplugin::LaunchRewritePass());
                  else if (name == "rc-thread-local-asm")
                    mpm.addPass(rcplugin::ThreadLocalAsmPass());
                  else if (name == "rc-rdc-static-names")
                    mpm.addPass(rcplugin::RdcStaticNamesPass());
                  else if (name == "rc-pure-virtual-trap")
                    mpm.addPass(rcplugin::PureVirtualTrapPass());
                  else if (name == "rc-used-external")
                    mpm.addPass(rcplugin::UsedExternalPass());
                  else if (name == "rc-grid-constant")
                    mpm.addPass(rcplugin::GridConstantPass());
                  else
                    return false;
                  return true;
                });
            pb.registerPipelineParsingCallback(
                [](StringRef name, FunctionPassManager &fpm,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (name == "rc-array-index-select")
                    fpm.addPass(rcplugin::ArrayIndexSelectPass());
                  else if (name == "rc-loop-remat")
                    fpm.addPass(rcplugin::LoopRematPass());
                  else if (name == "rc-half-pair")
                    fpm.addPass(rcplugin::HalfPairPass());
                  else if (name == "rc-wide-copy")
                    fpm.addPass(rcplugin::WideCopyPass());
                  else if (name == "rc-global-null")
                    fpm.addPass(rcplugin::GlobalNullPass());
                  else
                    return false;
                  return true;
                });
            pb.registerPipelineStartEPCallback(
                [](ModulePassManager &mpm, OptimizationLevel) {
                  mpm.addPass(rcplugin::RdcStaticNamesPass());
                  mpm.addPass(rcplugin::PureVirtualTrapPass());
                  mpm.addPass(rcplugin::UsedExternalPass());
                  mpm.addPass(rcplugin::GridConstantPass());
                  mpm.addPass(rcplugin::ThreadLocalAsmPass());
                  mpm.addPass(rcplugin::LaunchRewritePass());
                });
            pb.registerOptimizerLastEPCallback([](ModulePassManager &mpm,
                                                  OptimizationLevel level) {
              mpm.addPass(rcplugin::LaunchRewritePass());
              if (level != OptimizationLevel::O0) {
                FunctionPassManager fpm;
                fpm.addPass(rcplugin::ArrayIndexSelectPass());
                fpm.addPass(rcplugin::LoopRematPass());
                fpm.addPass(rcplugin::HalfPairPass());
                fpm.addPass(rcplugin::WideCopyPass());
                fpm.addPass(rcplugin::GlobalNullPass());
                mpm.addPass(createModuleToFunctionPassAdaptor(std::move(fpm)));
              }
            });
          }};
}
