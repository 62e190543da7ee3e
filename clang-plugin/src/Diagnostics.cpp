#include "Diagnostics.h"

#include "llvm/ADT/Twine.h"

using namespace clang;

namespace rcplugin {

Diagnostics::Diagnostics(DiagnosticsEngine &engine)
    : engine_(engine), errorId_(engine.getCustomDiagID(DiagnosticsEngine::Error,
                                                       "remote-clang: %0")) {}

void Diagnostics::error(SourceLocation loc, llvm::StringRef message) {
  ++errors_;
  engine_.Report(loc, errorId_) << message;
}

void Diagnostics::managedVariable(SourceLocation loc, llvm::StringRef name) {
  error(loc, (llvm::Twine("__managed__ variable '") + name +
              "' cannot be remoted: managed memory needs a shared address "
              "space with the GPU")
                 .str());
}

void Diagnostics::textureOrSurface(SourceLocation loc, llvm::StringRef name,
                                   bool surface) {
  error(loc, (llvm::Twine(surface ? "surface" : "texture") + " reference '" +
              name + "' cannot be remoted: use texture/surface objects instead")
                 .str());
}

void Diagnostics::deviceSideLaunch(SourceLocation loc, llvm::StringRef kernel,
                                   llvm::StringRef caller) {
  error(loc,
        (llvm::Twine("device-side launch of kernel '") + kernel + "' in '" +
         caller + "' cannot be remoted (dynamic parallelism is not supported)")
            .str());
}

} // namespace rcplugin
