#include "GccNarrowing.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Frontend/CompilerInstance.h"

#include <unordered_map>
#include <vector>

using namespace clang;

namespace rcplugin {
namespace {

enum class Narrowing { Constant, Floating, Variable };

// clang's narrowing diagnostics, by what they say of the value.
bool narrowingKind(unsigned id, Narrowing *kind) {
  switch (id) {
  case diag::ext_init_list_constant_narrowing:
  case diag::ext_init_list_constant_narrowing_const_reference:
    *kind = Narrowing::Constant;
    return true;
  case diag::ext_init_list_type_narrowing:
  case diag::ext_init_list_type_narrowing_const_reference:
    *kind = Narrowing::Floating; // constant or not: the AST tells
    return true;
  case diag::ext_init_list_variable_narrowing:
  case diag::ext_init_list_variable_narrowing_const_reference:
    *kind = Narrowing::Variable;
    return true;
  }
  return false;
}

// Passes every diagnostic on to the consumer it replaces, noting where
// clang reported narrowing and of which kind.
class NarrowingRecorder : public DiagnosticConsumer {
public:
  explicit NarrowingRecorder(DiagnosticsEngine &diags)
      : owned_(diags.takeClient()),
        inner_(owned_ ? owned_.get() : diags.getClient()) {}

  void BeginSourceFile(const LangOptions &opts,
                       const Preprocessor *pp) override {
    inner_->BeginSourceFile(opts, pp);
  }
  void EndSourceFile() override { inner_->EndSourceFile(); }
  void finish() override { inner_->finish(); }
  void clear() override {
    DiagnosticConsumer::clear();
    inner_->clear();
  }
  bool IncludeInDiagnosticCounts() const override {
    return inner_->IncludeInDiagnosticCounts();
  }
  void HandleDiagnostic(DiagnosticsEngine::Level level,
                        const Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info); // the counts
    Narrowing kind;
    if (narrowingKind(info.getID(), &kind) && info.getLocation().isValid())
      kinds_[info.getLocation().getRawEncoding()] = kind;
    inner_->HandleDiagnostic(level, info);
  }

  bool reported(SourceLocation loc, Narrowing *kind) const {
    auto it = kinds_.find(loc.getRawEncoding());
    if (it == kinds_.end())
      return false;
    *kind = it->second;
    return true;
  }

private:
  std::unique_ptr<DiagnosticConsumer> owned_;
  DiagnosticConsumer *inner_;
  std::unordered_map<SourceLocation::UIntTy, Narrowing> kinds_;
};

// After parsing: each narrowing clang reported, in code the host compiler
// compiles, of a constant expression, is an error.
class ConstantNarrowingCheck
    : public ASTConsumer,
      public RecursiveASTVisitor<ConstantNarrowingCheck> {
public:
  ConstantNarrowingCheck(DiagnosticsEngine &diags,
                         const NarrowingRecorder &recorder)
      : diags_(diags), recorder_(recorder),
        errorId_(diags.getCustomDiagID(
            DiagnosticsEngine::Error,
            "narrowing conversion of a constant expression of type %0 to "
            "%1 in initializer list in host code (gcc, nvcc's host "
            "compiler, refuses it too)")) {}

  void HandleTranslationUnit(ASTContext &ctx) override {
    ctx_ = &ctx;
    TraverseDecl(ctx.getTranslationUnitDecl());
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

  // nvcc compiles a __global__ function, and a __device__ one that is not
  // also __host__, for the device only, where its front end only warns.
  bool TraverseFunctionDecl(FunctionDecl *fn) {
    return traverseFunction(
        fn, [&] { return RecursiveASTVisitor::TraverseFunctionDecl(fn); });
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *fn) {
    return traverseFunction(
        fn, [&] { return RecursiveASTVisitor::TraverseCXXMethodDecl(fn); });
  }

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
  template <typename Traverse>
  bool traverseFunction(FunctionDecl *fn, Traverse traverse) {
    bool deviceOnly =
        fn->hasAttr<CUDAGlobalAttr>() ||
        (fn->hasAttr<CUDADeviceAttr>() && !fn->hasAttr<CUDAHostAttr>());
    deviceOnly_.push_back(deviceOnly || inDeviceCode());
    bool more = traverse();
    deviceOnly_.pop_back();
    return more;
  }

  bool inDeviceCode() const {
    return !deviceOnly_.empty() && deviceOnly_.back();
  }

  void check(Expr *init) {
    Narrowing kind;
    if (!init || inDeviceCode() ||
        !recorder_.reported(init->getBeginLoc(), &kind) ||
        kind == Narrowing::Variable)
      return;
    const Expr *value = init->IgnoreParenImpCasts();
    if (kind == Narrowing::Floating &&
        (value->isValueDependent() || !value->isCXX11ConstantExpr(*ctx_)))
      return;
    diags_.Report(init->getBeginLoc(), errorId_)
        << value->getType() << init->getType() << init->getSourceRange();
  }

  DiagnosticsEngine &diags_;
  const NarrowingRecorder &recorder_;
  unsigned errorId_;
  ASTContext *ctx_ = nullptr;
  std::vector<bool> deviceOnly_;
};

} // namespace

std::unique_ptr<ASTConsumer> relaxNarrowingAsGcc(CompilerInstance &ci) {
  DiagnosticsEngine &diags = ci.getDiagnostics();
  bool anError = false;
  for (unsigned id : {diag::ext_init_list_constant_narrowing,
                      diag::ext_init_list_type_narrowing,
                      diag::ext_init_list_variable_narrowing})
    anError |= diags.getDiagnosticLevel(id, SourceLocation()) >=
               DiagnosticsEngine::Error;
  // Under -w a warning would vanish, and with it the record of it.
  if (!anError || diags.getIgnoreAllWarnings())
    return nullptr;
  // As -Wno-error=c++11-narrowing: what is an error becomes a warning.
  diags.setDiagnosticGroupWarningAsError("c++11-narrowing", false);
  auto *recorder = new NarrowingRecorder(diags);
  diags.setClient(recorder, /*ShouldOwnClient=*/true);
  return std::make_unique<ConstantNarrowingCheck>(diags, *recorder);
}

} // namespace rcplugin
