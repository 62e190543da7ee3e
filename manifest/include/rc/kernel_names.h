// How tools and rc-server name kernels and IDs in their messages.
#ifndef RC_KERNEL_NAMES_H
#define RC_KERNEL_NAMES_H

#include "manifest_generated.h"

#include <cstdint>
#include <map>
#include <string>

namespace rc::tools {

std::string hexId(uint64_t id);                         // 0x%016x
std::string displayName(const rc::manifest::Kernel &k); // demangled or mangled

// With -fgpu-rdc clang gives a static kernel or variable the host names a
// unique name, <plain>__static__<hash>, so that the host finds it in the
// device-linked image; the plugin saw the plain one. That name among
// `names` (a cubin's symbols), when `plain` itself is not there.
bool externalizedName(const std::string &plain,
                      const std::map<std::string, uint64_t> &names,
                      std::string *out);

} // namespace rc::tools

#endif
