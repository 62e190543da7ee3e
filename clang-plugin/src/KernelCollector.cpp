#include "KernelCollector.h"

#include "ParamLayout.h"

#include "rc/kernel_id.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace rcplugin {
namespace {

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(ASTContext &ctx, const SymbolNamer &namer, const std::string &salt,
            const std::set<SourceLocation> &managedUses, Diagnostics &diags,
            CollectedSymbols &out)
      : ctx_(ctx), sm_(ctx.getSourceManager()), namer_(namer), salt_(salt),
        managedUses_(managedUses), diags_(diags), out_(out) {}

  // Implicit instantiations are where template kernels become real kernels.
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *fd) {
    if (!fd->hasAttr<CUDAGlobalAttr>() || fd->isDependentContext() ||
        !fd->doesThisDeclarationHaveABody())
      return true;
    // An explicit instantiation declaration (extern template) is defined in
    // another TU; only count specializations this TU emits.
    if (fd->getTemplateSpecializationKind() ==
        TSK_ExplicitInstantiationDeclaration)
      return true;
    const FunctionDecl *key = fd->getCanonicalDecl();
    if (out_.kernels.count(key))
      return true;
    KernelModel k;
    k.name = namer_.deviceName(fd);
    k.demangled = demangle(k.name);
    k.internal = namer_.isInternal(fd);
    k.id = rc::symbolId(k.name, k.internal, salt_);
    computeParamLayout(ctx_, fd, k);
    out_.kernels.emplace(key, std::move(k));
    return true;
  }

  bool VisitVarDecl(VarDecl *vd) {
    if (vd->getDeclContext()->isDependentContext() || isa<ParmVarDecl>(vd))
      return true;
    checkTextureOrSurface(vd);
    if (isManaged(vd)) {
      diags_.managedVariable(vd->getLocation(), vd->getName());
      return true;
    }
    bool constant = vd->hasAttr<CUDAConstantAttr>();
    if (!constant && !vd->hasAttr<CUDADeviceAttr>())
      return true;
    if (!vd->hasGlobalStorage() || vd->isStaticLocal() ||
        vd->isThisDeclarationADefinition() != VarDecl::Definition ||
        vd->getType()->isDependentType())
      return true;
    // Builtins of the CUDA/clang headers (warpSize) are no app symbols.
    if (sm_.isInSystemHeader(vd->getLocation()))
      return true;
    bool internal = namer_.isInternal(vd);
    // The device compile drops unused internal variables (CUDA headers
    // declare some, e.g. warpSize); the server could not look them up.
    if (internal && !vd->isUsed())
      return true;
    if (!seenVars_.insert(vd->getCanonicalDecl()).second)
      return true;
    VariableInfo v;
    v.name = namer_.deviceName(vd);
    v.demangled = demangle(v.name);
    v.internal = internal;
    v.id = rc::symbolId(v.name, v.internal, salt_);
    v.size = ctx_.getTypeSizeInChars(vd->getType()).getQuantity();
    v.kind = constant ? VarKind::Constant : VarKind::Device;
    out_.variables.push_back(std::move(v));
    return true;
  }

private:
  // True when the declaration's own text contains a __managed__ expansion
  // (see ManagedMacro.h), or clang kept the attribute.
  bool isManaged(const VarDecl *vd) const {
    if (vd->hasAttr<HIPManagedAttr>())
      return true;
    if (managedUses_.empty())
      return false;
    SourceLocation b = sm_.getExpansionLoc(vd->getBeginLoc());
    SourceLocation e = sm_.getExpansionLoc(vd->getLocation());
    for (SourceLocation use : managedUses_) {
      SourceLocation u = sm_.getExpansionLoc(use);
      if (u == b || u == e ||
          (sm_.isBeforeInTranslationUnit(b, u) &&
           sm_.isBeforeInTranslationUnit(u, e)))
        return true;
    }
    return false;
  }

  void checkTextureOrSurface(const VarDecl *vd) {
    QualType t = ctx_.getBaseElementType(vd->getType());
    if (t->isCUDADeviceBuiltinTextureType())
      diags_.textureOrSurface(vd->getLocation(), vd->getName(), false);
    else if (t->isCUDADeviceBuiltinSurfaceType())
      diags_.textureOrSurface(vd->getLocation(), vd->getName(), true);
  }

  ASTContext &ctx_;
  SourceManager &sm_;
  const SymbolNamer &namer_;
  const std::string &salt_;
  const std::set<SourceLocation> &managedUses_;
  Diagnostics &diags_;
  CollectedSymbols &out_;
  std::set<const VarDecl *> seenVars_;
};

} // namespace

void collectSymbols(ASTContext &ctx, const SymbolNamer &namer,
                    const std::string &salt,
                    const std::set<SourceLocation> &managedUses,
                    Diagnostics &diags, CollectedSymbols &out) {
  Collector c(ctx, namer, salt, managedUses, diags, out);
  c.TraverseDecl(ctx.getTranslationUnitDecl());
}

} // namespace rcplugin
