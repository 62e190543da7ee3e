// LLVM pass: a kernel parameter declared __grid_constant__ keeps its
// address in the kernel's parameter space, as with nvcc: `&p` is the
// parameter's own generic address (cvta.param), not that of a copy in
// local memory, so a TMA descriptor passed by value can be used where it
// is, and __isGridConstant(&p) holds.
//
// Why: clang 19 does not know the attribute (it warned "unknown attribute
// 'grid_constant' ignored"), and the NVPTX backend copies a by-value
// parameter to local memory wherever its address is taken. Later LLVMs
// read a "grid_constant" annotation for this, but LLVM 19's backend caches
// each kernel's annotations before any plugin pass runs (at -O1 and up),
// so adding one is not seen. rc-clang-cuda-fixes.h spells the attribute
// annotate("rc.grid_constant"), which clang emits as a llvm.var.annotation
// call on the parameter. For each such by-value aggregate parameter of a
// kernel, this pass gives every use other than a chain of loads the
// parameter's generic address, computed as the backend does for a grid
// constant (mov of the parameter's PTX name, cvta.param); the loads stay
// param-space loads. Every such annotation call is removed (a scalar
// parameter's names its local copy, which stays). Device modules only.
#ifndef RC_PLUGIN_GRIDCONSTANTPASS_H
#define RC_PLUGIN_GRIDCONSTANTPASS_H

#include "llvm/IR/PassManager.h"

namespace rcplugin {

/// The annotation string rc-clang-cuda-fixes.h gives __grid_constant__.
inline constexpr const char *GridConstantAnnotation = "rc.grid_constant";

class GridConstantPass : public llvm::PassInfoMixin<GridConstantPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
};

} // namespace rcplugin

#endif
