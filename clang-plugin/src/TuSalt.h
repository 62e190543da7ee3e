// The ID salt of a translation unit (rc/kernel_id.h): the real path of its
// main source file, or the path as given when it cannot be resolved. The
// AST plugin and the launch-rewrite pass both compute it; LLVM only, so the
// passes build without clang (RcPasses.so).
#ifndef RC_PLUGIN_TUSALT_H
#define RC_PLUGIN_TUSALT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace rcplugin {

std::string tuSalt(llvm::StringRef mainFile);

} // namespace rcplugin

#endif
