// Narrowing in braced initializers diagnosed as gcc, nvcc's host compiler,
// diagnoses it: an error where the value is a constant expression, a
// warning where it is not. clang makes both an error, and its one switch
// (-Wno-error=c++11-narrowing) would make both a warning. Its diagnostics
// are per kind of conversion rather than per constant-ness, so the plugin
// relaxes the group and restores the error for constant integers, and
// reports a constant floating-point value narrowed to an integer itself
// (clang's "type narrowing" covers constants and non-constants alike).
// The driver asks for this with -fplugin-arg-rcplugin-gcc-narrowing.
#ifndef RC_PLUGIN_GCCNARROWING_H
#define RC_PLUGIN_GCCNARROWING_H

#include <memory>

namespace clang {
class ASTConsumer;
class CompilerInstance;
} // namespace clang

namespace rcplugin {

/// Call before parsing starts (from CreateASTConsumer). Leaves alone what
/// the command line already made of narrowing (ignored, or a warning).
/// True where floating-point narrowing was an error: then the constant
/// case needs makeConstantNarrowingCheck.
bool relaxNarrowingAsGcc(clang::CompilerInstance &ci);

/// The errors gcc gives that relaxNarrowingAsGcc took from clang: a
/// constant floating-point value narrowed to an integer or bool.
std::unique_ptr<clang::ASTConsumer>
makeConstantNarrowingCheck(clang::CompilerInstance &ci);

} // namespace rcplugin

#endif
