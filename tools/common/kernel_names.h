// How tools and rc-server name kernels and IDs in their messages.
#ifndef RC_TOOLS_KERNEL_NAMES_H
#define RC_TOOLS_KERNEL_NAMES_H

#include "manifest_generated.h"

#include <cstdint>
#include <string>

namespace rc::tools {

std::string hexId(uint64_t id);                         // 0x%016x
std::string displayName(const rc::manifest::Kernel &k); // demangled or mangled

} // namespace rc::tools

#endif
