#include "PluginAction.h"

#include "Diagnostics.h"
#include "FragmentWriter.h"
#include "GccNarrowing.h"
#include "KernelCollector.h"
#include "LaunchSites.h"
#include "ManagedMacro.h"
#include "NvccSyntaxOverrides.h"
#include "SymbolInfo.h"
#include "TuSalt.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/Preprocessor.h"

#include <set>

using namespace clang;

namespace rcplugin {
namespace {

class RcConsumer : public ASTConsumer {
public:
  RcConsumer(CompilerInstance &ci, std::string outPath)
      : ci_(ci), outPath_(std::move(outPath)) {
    ci.getPreprocessor().addPPCallbacks(
        std::make_unique<ManagedMacroWatcher>(managedUses_));
  }

  void HandleTranslationUnit(ASTContext &ctx) override {
    Diagnostics diags(ci_.getDiagnostics());
    // Do not pile our findings onto a TU that already failed to compile.
    if (ci_.getDiagnostics().hasErrorOccurred())
      return;
    SourceManager &sm = ctx.getSourceManager();
    OptionalFileEntryRef main = sm.getFileEntryRefForID(sm.getMainFileID());
    std::string salt = tuSalt(main ? main->getName() : "");

    SymbolNamer namer(ctx, ci_.getPreprocessorOpts());
    CollectedSymbols syms;
    collectSymbols(ctx, namer, salt, managedUses_, diags, syms);
    LaunchSiteMap sites;
    collectLaunchSites(ctx, diags, sites);
    if (diags.hadError() || outPath_.empty())
      return;

    Fragment f;
    f.source = salt;
    for (auto &entry : syms.kernels) {
      KernelModel k = entry.second;
      auto it = sites.find(entry.first);
      if (it != sites.end())
        k.launchSites = it->second;
      f.kernels.push_back(std::move(k));
    }
    f.variables = std::move(syms.variables);
    std::string error;
    if (!writeBytes(outPath_, serializeFragment(f), &error))
      diags.error(SourceLocation(), "cannot write manifest fragment: " + error);
  }

private:
  CompilerInstance &ci_;
  std::string outPath_;
  std::set<SourceLocation> managedUses_;
};

} // namespace

std::unique_ptr<ASTConsumer>
RcPluginAction::CreateASTConsumer(CompilerInstance &ci, llvm::StringRef) {
  if (ci.getLangOpts().CUDA)
    overrideNvccSyntax(ci);
  // Both sides of a CUDA compile parse all of the code; both check, since
  // clang stops after the first side that fails (the device side).
  std::vector<std::unique_ptr<ASTConsumer>> consumers;
  if (gccNarrowing_ && ci.getLangOpts().CPlusPlus11)
    if (std::unique_ptr<ASTConsumer> check = relaxNarrowingAsGcc(ci))
      consumers.push_back(std::move(check));
  // The plugin is loaded into the device compiles too; the host compile sees
  // every launch and is the one that emits the stubs we rewrite.
  if (ci.getLangOpts().CUDA && !ci.getLangOpts().CUDAIsDevice)
    consumers.push_back(std::make_unique<RcConsumer>(ci, outPath_));
  if (consumers.empty())
    return std::make_unique<ASTConsumer>();
  if (consumers.size() == 1)
    return std::move(consumers.front());
  return std::make_unique<MultiplexConsumer>(std::move(consumers));
}

bool RcPluginAction::ParseArgs(const CompilerInstance &ci,
                               const std::vector<std::string> &args) {
  for (const std::string &a : args) {
    llvm::StringRef arg(a);
    if (arg.consume_front("out=")) {
      outPath_ = arg.str();
      continue;
    }
    if (arg == "gcc-narrowing") {
      gccNarrowing_ = true;
      continue;
    }
    DiagnosticsEngine &d = ci.getDiagnostics();
    d.Report(d.getCustomDiagID(DiagnosticsEngine::Error,
                               "remote-clang: unknown plugin argument '%0' "
                               "(expected out=PATH or gcc-narrowing)"))
        << a;
    return false;
  }
  return true;
}

} // namespace rcplugin
