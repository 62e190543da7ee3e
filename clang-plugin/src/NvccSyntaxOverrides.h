// Makes clang read the user's files with nvcc-only spellings rewritten
// (NvccSyntax.h): the main file and every header that is not a system
// header, each before clang lexes it. The files on disk are untouched;
// diagnostics, __FILE__ and dependency files name them as before.
#ifndef RC_PLUGIN_NVCCSYNTAXOVERRIDES_H
#define RC_PLUGIN_NVCCSYNTAXOVERRIDES_H

namespace clang {
class CompilerInstance;
}

namespace rcplugin {

/// Call before parsing starts (from CreateASTConsumer), in host and device
/// compiles alike: both parse the same source.
void overrideNvccSyntax(clang::CompilerInstance &ci);

} // namespace rcplugin

#endif
