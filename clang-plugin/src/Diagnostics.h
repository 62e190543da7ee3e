// Errors for constructs that cannot be remoted. Every message starts with
// "remote-clang: " and carries the source location of the construct.
#ifndef RC_PLUGIN_DIAGNOSTICS_H
#define RC_PLUGIN_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringRef.h"

namespace rcplugin {

class Diagnostics {
public:
  explicit Diagnostics(clang::DiagnosticsEngine &engine);
  void error(clang::SourceLocation loc, llvm::StringRef message);
  bool hadError() const { return errors_ > 0; }

  // The constructs we reject, one helper each so the wording stays uniform.
  void managedVariable(clang::SourceLocation loc, llvm::StringRef name);
  void textureOrSurface(clang::SourceLocation loc, llvm::StringRef name,
                        bool surface);
  void deviceSideLaunch(clang::SourceLocation loc, llvm::StringRef kernel,
                        llvm::StringRef caller);

private:
  clang::DiagnosticsEngine &engine_;
  unsigned errorId_;
  unsigned errors_ = 0;
};

} // namespace rcplugin

#endif
