// Stand-in used only while the rc_transport target does not exist yet:
// every connect fails with a sentence saying why, instead of a link error.
#include "rc/transport.h"

namespace rc::transport {

const char *statusName(Status s) {
  switch (s) {
  case Status::Ok:
    return "ok";
  case Status::Timeout:
    return "timeout";
  case Status::Closed:
    return "closed";
  default:
    return "error";
  }
}

std::unique_ptr<Connection> connect(const std::string &url, int,
                                    std::string *error) {
  *error = "cannot connect to " + url +
           ": this runtime was built without the transport library";
  return nullptr;
}

std::unique_ptr<Listener> listen(const std::string &url, std::string *error) {
  *error = "cannot listen on " + url +
           ": this runtime was built without the transport library";
  return nullptr;
}

} // namespace rc::transport
