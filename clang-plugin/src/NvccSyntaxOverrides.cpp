#include "NvccSyntaxOverrides.h"

#include "NvccSyntax.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace clang;

namespace rcplugin {
namespace {

/// Gives the SourceManager the rewritten text of `file`, if it needs any.
/// Returns whether it did.
bool overrideIfNeeded(SourceManager &sm, FileEntryRef file,
                      const LangOptions &lang) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> original =
      sm.getFileManager().getBufferForFile(file);
  if (!original)
    return false; // clang reports the unreadable file itself
  std::optional<std::string> rewritten =
      rewriteNvccSyntax((*original)->getBuffer(), lang);
  if (!rewritten)
    return false;
  sm.overrideFileContents(
      file, llvm::MemoryBuffer::getMemBufferCopy(*rewritten, file.getName()));
  return true;
}

// A header's text is replaced when its #include is seen, before clang makes
// the header's FileID (whose size is the text's).
class UserHeaderOverrides : public PPCallbacks {
public:
  UserHeaderOverrides(SourceManager &sm, const LangOptions &lang)
      : sm_(sm), lang_(lang) {}

  void InclusionDirective(SourceLocation, const Token &, StringRef, bool,
                          CharSourceRange, OptionalFileEntryRef file, StringRef,
                          StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind kind) override {
    if (!file || kind != SrcMgr::C_User || !seen_.insert(*file).second)
      return;
    overrideIfNeeded(sm_, *file, lang_);
  }

private:
  SourceManager &sm_;
  const LangOptions &lang_;
  llvm::DenseSet<FileEntryRef> seen_;
};

} // namespace

void overrideNvccSyntax(CompilerInstance &ci) {
  SourceManager &sm = ci.getSourceManager();
  const LangOptions &lang = ci.getLangOpts();
  // The main FileID exists already, sized by the file on disk; a rewrite
  // may be longer, so the main file gets a new FileID over the new text.
  // Nothing has been lexed yet: no location refers to the old one.
  if (OptionalFileEntryRef main = sm.getFileEntryRefForID(sm.getMainFileID()))
    if (overrideIfNeeded(sm, *main, lang))
      sm.setMainFileID(
          sm.createFileID(*main, SourceLocation(), SrcMgr::C_User));
  ci.getPreprocessor().addPPCallbacks(
      std::make_unique<UserHeaderOverrides>(sm, lang));
}

} // namespace rcplugin
