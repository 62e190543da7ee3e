// clang 19 ignores the `managed` attribute in CUDA mode (only HIP keeps it as
// HIPManagedAttr), so a __managed__ variable looks like a plain __device__
// one in the AST. We watch the CUDA headers' `__managed__` macro instead and
// remember where it was expanded.
#ifndef RC_PLUGIN_MANAGEDMACRO_H
#define RC_PLUGIN_MANAGEDMACRO_H

#include "clang/Lex/PPCallbacks.h"

#include <set>

namespace rcplugin {

class ManagedMacroWatcher : public clang::PPCallbacks {
public:
  explicit ManagedMacroWatcher(std::set<clang::SourceLocation> &uses)
      : uses_(uses) {}
  void MacroExpands(const clang::Token &name, const clang::MacroDefinition &,
                    clang::SourceRange range,
                    const clang::MacroArgs *) override;

private:
  std::set<clang::SourceLocation> &uses_;
};

} // namespace rcplugin

#endif
