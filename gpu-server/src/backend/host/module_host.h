// Driver-API modules on the host test device (docs/driver-api.md): it runs
// no kernels, so a module is its PTX text, and a kernel's parameter layout
// is read from its `.entry` declaration, laid out as the driver lays it out.
#ifndef RC_SERVER_MODULE_HOST_H
#define RC_SERVER_MODULE_HOST_H

#include "rc/server/registry.h"

#include <string>

namespace rc::server {

// The layout of the parameters of `.entry name(...)` in `ptx`; false with
// *why when there is no such entry or a parameter is not understood.
bool ptxEntryLayout(const std::string &ptx, const std::string &name,
                    KernelInfo *out, std::string *why);

} // namespace rc::server

#endif
