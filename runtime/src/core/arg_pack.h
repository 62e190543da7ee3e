// Packs a launch's argument array (one pointer per parameter, as clang's
// stubs and cudaLaunchKernel pass them) into the flat buffer the manifest
// layout describes: param i's `size` bytes from args[i] at its `offset`.
#ifndef RC_RT_ARG_PACK_H
#define RC_RT_ARG_PACK_H

#include "manifest_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rc::rt {

// False (and *error set) if the layout is inconsistent or args is missing.
bool packArgs(const manifest::Kernel &k, void **args, std::vector<uint8_t> &out,
              std::string *error);

} // namespace rc::rt

#endif
