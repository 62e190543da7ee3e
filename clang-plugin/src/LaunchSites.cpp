#include "LaunchSites.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace rcplugin {
namespace {

// Runtime launch APIs: the `how` we record and which argument is the kernel.
struct LaunchApi {
  const char *how = nullptr;
  unsigned kernelArg = 0;
};

LaunchApi classifyLaunchApi(llvm::StringRef name) {
  return llvm::StringSwitch<LaunchApi>(name)
      .Cases("cudaLaunchKernel", "cudaLaunchKernel_ptsz",
             LaunchApi{"cudaLaunchKernel", 0})
      .Cases("cudaLaunchKernelEx", "cudaLaunchKernelExC",
             "cudaLaunchKernelEx_ptsz", "cudaLaunchKernelExC_ptsz",
             LaunchApi{"cudaLaunchKernelEx", 1})
      .Cases("cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz",
             LaunchApi{"cudaLaunchCooperativeKernel", 0})
      .Default(LaunchApi{});
}

// The kernel a launch argument names: `k`, `&k`, `(const void *)k`,
// `kt<float>`, through any casts and parentheses.
const DeclRefExpr *kernelRef(const Expr *e) {
  while (e) {
    e = e->IgnoreParenCasts();
    if (const auto *uo = dyn_cast<UnaryOperator>(e)) {
      if (uo->getOpcode() != UO_AddrOf)
        return nullptr;
      e = uo->getSubExpr();
      continue;
    }
    return dyn_cast<DeclRefExpr>(e);
  }
  return nullptr;
}

const FunctionDecl *asKernel(const DeclRefExpr *ref) {
  if (!ref)
    return nullptr;
  const auto *fd = dyn_cast<FunctionDecl>(ref->getDecl());
  if (!fd || !fd->hasAttr<CUDAGlobalAttr>())
    return nullptr;
  return fd;
}

bool isDeviceCode(const FunctionDecl *fd) {
  return fd &&
         (fd->hasAttr<CUDAGlobalAttr>() ||
          (fd->hasAttr<CUDADeviceAttr>() && !fd->hasAttr<CUDAHostAttr>()));
}

class SiteVisitor : public RecursiveASTVisitor<SiteVisitor> {
  using Base = RecursiveASTVisitor<SiteVisitor>;

public:
  SiteVisitor(ASTContext &ctx, Diagnostics &diags, LaunchSiteMap &out)
      : sm_(ctx.getSourceManager()), diags_(diags), out_(out) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  // The syntactic form of `{attn<64>}` keeps the unresolved template-id;
  // only the semantic (implicit) form names the chosen specialization.
  bool shouldVisitImplicitCode() const { return true; }

  // Track the enclosing function (lambda bodies count as their call
  // operator) to tell device-side launches from host ones.
  bool TraverseDecl(Decl *d) {
    auto *fd = dyn_cast_or_null<FunctionDecl>(d);
    if (fd)
      enclosing_.push_back(fd);
    bool ok = Base::TraverseDecl(d);
    if (fd)
      enclosing_.pop_back();
    return ok;
  }
  bool TraverseLambdaExpr(LambdaExpr *e) {
    enclosing_.push_back(e->getCallOperator());
    bool ok = Base::TraverseLambdaExpr(e);
    enclosing_.pop_back();
    // A generic lambda's instantiated call operators are not reached from
    // the expression (only the pattern body is): visit them explicitly.
    if (FunctionTemplateDecl *t = e->getDependentCallOperator())
      for (FunctionDecl *spec : t->specializations())
        ok = ok && TraverseDecl(spec);
    return ok;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *e) {
    const DeclRefExpr *ref = kernelRef(e->getCallee());
    if (ref)
      consumed_.insert(ref);
    const FunctionDecl *k = asKernel(ref);
    if (!k)
      return true; // dependent (template pattern) or through a pointer
    const FunctionDecl *caller =
        enclosing_.empty() ? nullptr : enclosing_.back();
    if (isDeviceCode(caller)) {
      // A template pattern and its instantiation share the location.
      if (diagnosed_.insert(e->getBeginLoc()).second)
        diags_.deviceSideLaunch(e->getBeginLoc(), k->getNameAsString(),
                                caller->getNameAsString());
      return true;
    }
    add(k, e->getBeginLoc(), "chevron");
    return true;
  }

  bool VisitCallExpr(CallExpr *e) {
    if (isa<CUDAKernelCallExpr>(e))
      return true;
    LaunchApi api = classifyLaunchApi(calleeName(e));
    if (!api.how || e->getNumArgs() <= api.kernelArg)
      return true;
    const DeclRefExpr *ref = kernelRef(e->getArg(api.kernelArg));
    if (!ref)
      return true;
    consumed_.insert(ref);
    if (const FunctionDecl *k = asKernel(ref))
      add(k, e->getBeginLoc(), api.how);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *e) {
    if (consumed_.count(e))
      return true;
    if (const FunctionDecl *k = asKernel(e))
      add(k, e->getBeginLoc(), "address-taken");
    return true;
  }

private:
  // The callee's name for resolved calls and for calls still dependent in a
  // template pattern (so their kernel argument is not taken for an
  // address-taken use).
  static llvm::StringRef calleeName(const CallExpr *e) {
    if (const FunctionDecl *fd = e->getDirectCallee())
      if (const IdentifierInfo *ii = fd->getIdentifier())
        return ii->getName();
    const Expr *callee = e->getCallee()->IgnoreParenImpCasts();
    if (const auto *ov = dyn_cast<OverloadExpr>(callee))
      if (const IdentifierInfo *ii = ov->getName().getAsIdentifierInfo())
        return ii->getName();
    return {};
  }

  void add(const FunctionDecl *k, SourceLocation loc, const char *how) {
    SourceLocation exp = sm_.getExpansionLoc(loc);
    PresumedLoc p = sm_.getPresumedLoc(exp);
    if (p.isInvalid())
      return;
    LaunchSiteInfo s;
    s.file = p.getFilename();
    s.line = p.getLine();
    s.column = p.getColumn();
    s.how = how;
    out_[k->getCanonicalDecl()].push_back(std::move(s));
  }

  SourceManager &sm_;
  Diagnostics &diags_;
  LaunchSiteMap &out_;
  std::vector<const FunctionDecl *> enclosing_;
  std::set<const DeclRefExpr *> consumed_;
  std::set<SourceLocation> diagnosed_;
};

} // namespace

void collectLaunchSites(ASTContext &ctx, Diagnostics &diags,
                        LaunchSiteMap &out) {
  SiteVisitor v(ctx, diags, out);
  v.TraverseDecl(ctx.getTranslationUnitDecl());
  for (auto &entry : out) {
    std::vector<LaunchSiteInfo> &sites = entry.second;
    std::sort(sites.begin(), sites.end());
    sites.erase(std::unique(sites.begin(), sites.end()), sites.end());
  }
}

} // namespace rcplugin
