// Human and JSON descriptions of kernels: `list` and `show`.
#ifndef RC_MANIFEST_DESCRIBE_H
#define RC_MANIFEST_DESCRIBE_H

#include "manifest_generated.h"
#include "rc/kernel_names.h"

#include <string>
#include <vector>

namespace rc::tools {

std::string kindName(rc::manifest::ParamKind kind);
std::string varKindName(rc::manifest::VarKind kind); // "__constant__", ...

int listKernels(const rc::manifest::Manifest &m, bool json);
// Kernels matching "0x<hex id>", a mangled name, a demangled name, or a
// demangled name without its parameter list.
std::vector<const rc::manifest::Kernel *>
findKernels(const rc::manifest::Manifest &m, const std::string &key);
void showKernel(const rc::manifest::Manifest &m, const rc::manifest::Kernel &k,
                bool json);

} // namespace rc::tools

#endif
