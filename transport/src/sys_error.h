// The words for a failed system call, for the transport's error messages:
// "what: <errno's text>", errno as the call left it.
#ifndef RC_TRANSPORT_SYS_ERROR_H
#define RC_TRANSPORT_SYS_ERROR_H

#include <string>

namespace rc::transport::detail {

std::string sysError(const char *what);

} // namespace rc::transport::detail

#endif
