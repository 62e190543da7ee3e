#include "sys_error.h"

#include <cerrno>
#include <cstring>

namespace rc::transport::detail {

std::string sysError(const char *what) {
  return std::string(what) + ": " + std::strerror(errno);
}

} // namespace rc::transport::detail
