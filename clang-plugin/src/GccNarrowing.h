// Narrowing in braced initializers diagnosed as nvcc does: nvcc's front end
// only warns about it in device code, and gcc, its host compiler, refuses
// it in host code where the value is a constant expression and warns
// where it is not. clang refuses all of it, and its one switch
// (-Wno-error=c++11-narrowing) would accept all of it; its diagnostics
// tell a constant integer apart but not a constant floating-point value
// (its "type narrowing" covers both). So the plugin makes narrowing a
// warning, records where clang reported it, and after parsing reports the
// constant ones in code the host compiler sees (not __global__ or
// __device__-only functions) as errors itself.
// The driver asks for this with -fplugin-arg-rcplugin-gcc-narrowing.
#ifndef RC_PLUGIN_GCCNARROWING_H
#define RC_PLUGIN_GCCNARROWING_H

#include <memory>

namespace clang {
class ASTConsumer;
class CompilerInstance;
} // namespace clang

namespace rcplugin {

/// Call before parsing starts (from CreateASTConsumer). Where narrowing is
/// not an error already (-Wno-..., -Wno-error=..., -w), changes nothing
/// and returns null; else the check that restores gcc's errors.
std::unique_ptr<clang::ASTConsumer>
relaxNarrowingAsGcc(clang::CompilerInstance &ci);

} // namespace rcplugin

#endif
