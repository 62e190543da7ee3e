#include "GccNarrowing.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Frontend/CompilerInstance.h"

using namespace clang;

namespace rcplugin {
namespace {

// Narrowing of a constant integer (or of a constant floating-point value
// to a narrower floating type): gcc refuses it, clang's error stays.
constexpr unsigned kConstantNarrowing[] = {
    diag::ext_init_list_constant_narrowing,
    diag::ext_init_list_constant_narrowing_const_reference};

class ConstantNarrowingCheck
    : public ASTConsumer,
      public RecursiveASTVisitor<ConstantNarrowingCheck> {
public:
  explicit ConstantNarrowingCheck(DiagnosticsEngine &diags)
      : diags_(diags),
        errorId_(diags.getCustomDiagID(
            DiagnosticsEngine::Error,
            "constant expression of type %0 cannot be narrowed to %1 in "
            "initializer list (gcc refuses it too)")) {}

  void HandleTranslationUnit(ASTContext &ctx) override {
    ctx_ = &ctx;
    TraverseDecl(ctx.getTranslationUnitDecl());
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

  // The traversal walks a list's syntactic form; the conversions are in
  // its semantic form.
  bool VisitInitListExpr(InitListExpr *list) {
    InitListExpr *semantic =
        list->isSemanticForm() ? list : list->getSemanticForm();
    if (semantic && !semantic->isValueDependent())
      for (Expr *init : semantic->inits())
        check(init);
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *construct) {
    if (construct->isListInitialization() && !construct->isValueDependent())
      for (Expr *arg : construct->arguments())
        check(arg);
    return true;
  }

private:
  // A floating-point to integer (or bool) conversion of a constant.
  void check(Expr *init) {
    auto *cast = dyn_cast_or_null<ImplicitCastExpr>(init ? init->IgnoreParens()
                                                         : nullptr);
    while (cast && cast->getCastKind() != CK_FloatingToIntegral &&
           cast->getCastKind() != CK_FloatingToBoolean)
      cast = dyn_cast<ImplicitCastExpr>(cast->getSubExpr()->IgnoreParens());
    if (!cast)
      return;
    const Expr *value = cast->getSubExpr();
    if (value->isValueDependent() || !value->isCXX11ConstantExpr(*ctx_))
      return;
    diags_.Report(value->getBeginLoc(), errorId_)
        << value->getType() << cast->getType() << value->getSourceRange();
  }

  DiagnosticsEngine &diags_;
  unsigned errorId_;
  ASTContext *ctx_ = nullptr;
};

} // namespace

bool relaxNarrowingAsGcc(CompilerInstance &ci) {
  DiagnosticsEngine &diags = ci.getDiagnostics();
  bool floatingWasError =
      diags.getDiagnosticLevel(diag::ext_init_list_type_narrowing,
                               SourceLocation()) >= DiagnosticsEngine::Error;
  bool constantWasError[std::size(kConstantNarrowing)];
  for (size_t i = 0; i < std::size(kConstantNarrowing); ++i)
    constantWasError[i] =
        diags.getDiagnosticLevel(kConstantNarrowing[i], SourceLocation()) >=
        DiagnosticsEngine::Error;
  // As -Wno-error=c++11-narrowing: what is an error becomes a warning.
  diags.setDiagnosticGroupWarningAsError("c++11-narrowing", false);
  for (size_t i = 0; i < std::size(kConstantNarrowing); ++i)
    if (constantWasError[i])
      diags.setSeverity(kConstantNarrowing[i], diag::Severity::Error,
                        SourceLocation());
  return floatingWasError;
}

std::unique_ptr<ASTConsumer> makeConstantNarrowingCheck(CompilerInstance &ci) {
  return std::make_unique<ConstantNarrowingCheck>(ci.getDiagnostics());
}

} // namespace rcplugin
