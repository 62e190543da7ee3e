#include "TuSalt.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

namespace rcplugin {

std::string tuSalt(llvm::StringRef mainFile) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(mainFile, real))
    return mainFile.str();
  return std::string(real.str());
}

} // namespace rcplugin
