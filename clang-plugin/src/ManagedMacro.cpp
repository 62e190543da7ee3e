#include "ManagedMacro.h"

#include "clang/Basic/IdentifierTable.h"
#include "clang/Lex/Token.h"

namespace rcplugin {

void ManagedMacroWatcher::MacroExpands(const clang::Token &name,
                                       const clang::MacroDefinition &,
                                       clang::SourceRange range,
                                       const clang::MacroArgs *) {
  if (const clang::IdentifierInfo *ii = name.getIdentifierInfo())
    if (ii->getName() == "__managed__")
      uses_.insert(range.getBegin());
}

} // namespace rcplugin
