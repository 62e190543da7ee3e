#include "core/unsupported.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

extern "C" __attribute__((visibility("default"))) int
__rc_report_unsupported(const char *call, const char *library) {
  static std::mutex mu;
  static std::set<std::string> *reported = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  if (!reported->insert(call).second)
    return 0;
  std::fprintf(stderr, "remote-clang: %s is not supported by the remote %s\n",
               call, library);
  return 1;
}

namespace rc::rt {

cudaError_t reportUnsupported(const char *call) {
  __rc_report_unsupported(call, "runtime");
  return cudaErrorNotSupported;
}

} // namespace rc::rt
