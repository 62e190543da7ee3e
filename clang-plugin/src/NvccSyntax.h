// nvcc's front end accepts a few spellings that clang 19 refuses, and CUDA
// code written against nvcc uses them (cuda-samples among others):
//   - `__shared__ alignas(16) float tile[32];`: clang wants a C++11
//     attribute before every decl-specifier, nvcc takes it after
//     `__shared__`, `extern` and the like.
//   - `asm("mov.u64 %0, %globaltimer;" : "=l"(t));`: in an asm statement
//     with operands clang reads `%g` as an operand modifier and stops at the
//     letter that follows; nvcc passes a PTX special register's name through.
//   - `asm("..." :: "r"(a) "l"(b));`: operands without a separating comma.
//   - `kernel<< <grid, block>> >(args)`: a launch's chevrons written apart
//     (blanks or comments between `<<` and `<`, `>>` and `>`); clang's
//     lexer makes `<<<` and `>>>` only of adjacent characters.
// rewriteNvccSyntax() turns each into the spelling clang accepts and that
// means what nvcc makes of it: the attribute moved to the front, `%%`, the
// comma, the chevrons joined. It works on tokens (clang's raw lexer), so
// comments and string contents elsewhere are never touched.
#ifndef RC_PLUGIN_NVCCSYNTAX_H
#define RC_PLUGIN_NVCCSYNTAX_H

#include "clang/Basic/LangOptions.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace rcplugin {

/// The text with nvcc-only spellings rewritten, or nullopt if it has none.
/// `text` must be followed by a NUL (a MemoryBuffer's is), as clang's lexer
/// requires.
/// Moving an attribute and joining chevrons (what separated them follows
/// the joined token) keep every offset and line; `%%` and the comma add a
/// character each, so columns after them on the same line shift by one.
std::optional<std::string> rewriteNvccSyntax(llvm::StringRef text,
                                             const clang::LangOptions &lang);

} // namespace rcplugin

#endif
