// The CUDA kernel parameter buffer layout of a __global__ function: each
// parameter at alignTo(previous end, its alignment), with the byte offsets of
// every device pointer it carries (also inside by-value structs and arrays).
#ifndef RC_PLUGIN_PARAMLAYOUT_H
#define RC_PLUGIN_PARAMLAYOUT_H

#include "Model.h"

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace rcplugin {

// Fills params and argsSize of k from fd's (instantiated) parameters.
void computeParamLayout(clang::ASTContext &ctx, const clang::FunctionDecl *fd,
                        KernelModel &k);

} // namespace rcplugin

#endif
