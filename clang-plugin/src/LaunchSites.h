// Finds where each kernel is launched: <<<>>> (also in templates, lambdas and
// macros), cudaLaunchKernel / cudaLaunchKernelEx(C) /
// cudaLaunchCooperativeKernel calls naming the kernel, and every other place
// its address is taken (function pointers: the runtime's stub table handles
// those). Rejects <<<>>> in device code (dynamic parallelism).
#ifndef RC_PLUGIN_LAUNCHSITES_H
#define RC_PLUGIN_LAUNCHSITES_H

#include "Diagnostics.h"
#include "Model.h"

#include <map>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace rcplugin {

// Sites per canonical kernel declaration, sorted and without duplicates
// (a template instantiated twice visits the same site twice).
using LaunchSiteMap =
    std::map<const clang::FunctionDecl *, std::vector<LaunchSiteInfo>>;

void collectLaunchSites(clang::ASTContext &ctx, Diagnostics &diags,
                        LaunchSiteMap &out);

} // namespace rcplugin

#endif
