#include "SymbolInfo.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace rcplugin {

// Mirrors clang's CGNVCUDARuntime InitDeviceMC: the host compile names
// device symbols with a mangle context for the aux (device) target, or a
// device mangle context when host and device C++ ABIs differ.
static MangleContext *makeDeviceMC(ASTContext &ctx) {
  const TargetInfo *aux = ctx.getAuxTargetInfo();
  if (aux && ctx.getTargetInfo().getCXXABI().isMicrosoft() &&
      aux->getCXXABI().isItaniumFamily())
    return ctx.createDeviceMangleContext(*aux);
  return ctx.createMangleContext(aux);
}

SymbolNamer::SymbolNamer(ASTContext &ctx, const PreprocessorOptions &ppOpts)
    : ctx_(ctx), ppOpts_(ppOpts), deviceMC_(makeDeviceMC(ctx)) {}

std::string SymbolNamer::deviceName(const NamedDecl *d) const {
  GlobalDecl gd;
  if (const auto *fd = dyn_cast<FunctionDecl>(d))
    gd = GlobalDecl(fd, KernelReferenceKind::Kernel);
  else
    gd = GlobalDecl(cast<VarDecl>(d));
  llvm::SmallString<256> buf;
  llvm::raw_svector_ostream os(buf);
  if (deviceMC_->shouldMangleDeclName(d))
    deviceMC_->mangleName(gd, os);
  else
    os << d->getIdentifier()->getName();
  // With -fgpu-rdc clang externalizes internal device symbols under a
  // per-TU postfix; the registered name carries it.
  if (ctx_.getLangOpts().GPURelocatableDeviceCode && ctx_.shouldExternalize(d))
    os << (isa<VarDecl>(d) ? "__static__" : "__intern__") << rdcPostfix(d);
  return std::string(buf.str());
}

// Mirrors CodeGenModule::printPostfixForExternalizedDecl (clang 19): the
// CUID hash when -cuid is given, else the declaring file's unique ID (inode,
// device) and an MD5 of the command-line macro names.
std::string SymbolNamer::rdcPostfix(const NamedDecl *d) const {
  if (!ctx_.getLangOpts().CUID.empty())
    return ctx_.getCUIDHash().str();
  const SourceManager &sm = ctx_.getSourceManager();
  llvm::MD5 hash;
  for (const auto &macro : ppOpts_.Macros)
    hash.update(macro.first);
  llvm::MD5::MD5Result result;
  hash.final(result);
  llvm::sys::fs::UniqueID id;
  PresumedLoc loc = sm.getPresumedLoc(d->getLocation());
  if (loc.isInvalid() || llvm::sys::fs::getUniqueID(loc.getFilename(), id)) {
    loc = sm.getPresumedLoc(d->getLocation(), /*UseLineDirectives=*/false);
    if (loc.isValid())
      (void)llvm::sys::fs::getUniqueID(loc.getFilename(), id);
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%x", id.getFile()) << llvm::format("%x", id.getDevice())
     << "_" << llvm::utohexstr(result.low(), /*LowerCase=*/true, /*Width=*/8);
  return os.str();
}

bool SymbolNamer::isInternal(const NamedDecl *d) const {
  if (const auto *fd = dyn_cast<FunctionDecl>(d))
    return ctx_.GetGVALinkageForFunction(fd) == GVA_Internal;
  return ctx_.GetGVALinkageForVariable(cast<VarDecl>(d)) == GVA_Internal;
}

std::string demangle(const std::string &name) {
  // Keep an -fgpu-rdc externalization postfix readable: demangle the part
  // before it and append it unchanged.
  for (const char *tag : {"__intern__", "__static__"}) {
    size_t at = name.rfind(tag);
    if (at != std::string::npos && at > 0)
      return llvm::demangle(name.substr(0, at)) + " [" + name.substr(at) + "]";
  }
  return llvm::demangle(name);
}

} // namespace rcplugin
