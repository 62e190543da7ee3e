// Finds every __global__ function defined or instantiated in the TU (all
// template specializations, including variadic and non-type ones) and every
// __device__/__constant__ variable definition; computes names, IDs and
// parameter layouts. Rejects managed variables and texture/surface
// references.
#ifndef RC_PLUGIN_KERNELCOLLECTOR_H
#define RC_PLUGIN_KERNELCOLLECTOR_H

#include "Diagnostics.h"
#include "Model.h"
#include "SymbolInfo.h"

#include "clang/Basic/SourceLocation.h"

#include <map>
#include <set>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace rcplugin {

struct CollectedSymbols {
  // Keyed by canonical declaration, so launch sites can be attached.
  std::map<const clang::FunctionDecl *, KernelModel> kernels;
  std::vector<VariableInfo> variables;
};

void collectSymbols(clang::ASTContext &ctx, const SymbolNamer &namer,
                    const std::string &salt,
                    const std::set<clang::SourceLocation> &managedUses,
                    Diagnostics &diags, CollectedSymbols &out);

} // namespace rcplugin

#endif
