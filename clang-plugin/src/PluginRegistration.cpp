// Registers the AST plugin under the name "rcplugin" (no '-': clang splits
// -fplugin-arg-NAME-ARG at the first dash).
#include "PluginAction.h"

#include "clang/Frontend/FrontendPluginRegistry.h"

static clang::FrontendPluginRegistry::Add<rcplugin::RcPluginAction>
    X("rcplugin", "remote-clang: kernel manifest fragment and diagnostics");
