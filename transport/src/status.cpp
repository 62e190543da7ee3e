#include "rc/transport.h"

namespace rc::transport {

const char *statusName(Status s) {
  switch (s) {
  case Status::Ok:
    return "Ok";
  case Status::Timeout:
    return "Timeout";
  case Status::Closed:
    return "Closed";
  case Status::Error:
    return "Error";
  }
  return "Unknown";
}

} // namespace rc::transport
