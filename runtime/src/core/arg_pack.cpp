#include "core/arg_pack.h"

#include <cstring>

namespace rc::rt {

bool packArgs(const manifest::Kernel &k, void **args, std::vector<uint8_t> &out,
              std::string *error) {
  out.assign(k.args_size(), 0); // padding bytes are zero, deterministically
  if (!k.params() || k.params()->size() == 0)
    return true;
  if (!args) {
    *error = "argument array is null but the kernel takes " +
             std::to_string(k.params()->size()) + " parameters";
    return false;
  }
  for (uint32_t i = 0; i < k.params()->size(); ++i) {
    const manifest::Param *p = k.params()->Get(i);
    if (uint64_t(p->offset()) + p->size() > out.size()) {
      *error = "manifest layout of parameter " + std::to_string(i) +
               " lies outside the " + std::to_string(out.size()) +
               "-byte argument buffer";
      return false;
    }
    if (p->size() == 0)
      continue;
    if (!args[i]) {
      *error = "argument " + std::to_string(i) + " pointer is null";
      return false;
    }
    std::memcpy(out.data() + p->offset(), args[i], p->size());
  }
  return true;
}

} // namespace rc::rt
