// Serializes a TU's Fragment as a rc.manifest.Manifest flatbuffer (file
// identifier RCMF) with exactly one module. Output is deterministic: kernels
// sorted by id (rc::findKernel binary-searches them), variables by id then
// name, launch sites by position.
#ifndef RC_PLUGIN_FRAGMENTWRITER_H
#define RC_PLUGIN_FRAGMENTWRITER_H

#include "Model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rcplugin {

std::vector<uint8_t> serializeFragment(const Fragment &f);

// Writes bytes to path; on failure returns false with a sentence in *error.
bool writeBytes(const std::string &path, const std::vector<uint8_t> &bytes,
                std::string *error);

} // namespace rcplugin

#endif
