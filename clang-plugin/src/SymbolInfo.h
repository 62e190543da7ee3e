// Names and IDs of device symbols, computed exactly as clang's CUDA codegen
// names them in __cudaRegisterFunction / __cudaRegisterVar, so that the IDs
// the AST plugin writes equal the IDs the LLVM pass plants in the IR.
#ifndef RC_PLUGIN_SYMBOLINFO_H
#define RC_PLUGIN_SYMBOLINFO_H

#include "clang/AST/Mangle.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace clang {
class ASTContext;
class NamedDecl;
class PreprocessorOptions;
} // namespace clang

namespace rcplugin {

class SymbolNamer {
public:
  SymbolNamer(clang::ASTContext &ctx, const clang::PreprocessorOptions &ppOpts);
  // Device-side name: a kernel's mangled name as the device compile emits it
  // (GlobalDecl kernel kind), a variable's mangled name, or the plain
  // identifier for unmangled (extern "C", global-namespace variable) names.
  std::string deviceName(const clang::NamedDecl *d) const;
  // True when codegen gives the symbol internal linkage (static, anonymous
  // namespace, templates over internal types): its ID gets the TU salt.
  bool isInternal(const clang::NamedDecl *d) const;

private:
  std::string rdcPostfix(const clang::NamedDecl *d) const;

  clang::ASTContext &ctx_;
  const clang::PreprocessorOptions &ppOpts_;
  std::unique_ptr<clang::MangleContext> deviceMC_;
};

std::string demangle(const std::string &name);

} // namespace rcplugin

#endif
