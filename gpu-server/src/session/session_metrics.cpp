#include "rc/server/session_metrics.h"

namespace rc::server {

void SessionMetrics::identify(uint32_t pid, const std::string &name) {
  std::lock_guard<std::mutex> lock(identityMutex_);
  pid_ = pid;
  name_ = name;
}

uint32_t SessionMetrics::clientPid() const {
  std::lock_guard<std::mutex> lock(identityMutex_);
  return pid_;
}

std::string SessionMetrics::clientName() const {
  std::lock_guard<std::mutex> lock(identityMutex_);
  return name_;
}

void SessionMetrics::setTenant(const std::string &tenant) {
  std::lock_guard<std::mutex> lock(identityMutex_);
  tenant_ = tenant;
}

std::string SessionMetrics::tenant() const {
  std::lock_guard<std::mutex> lock(identityMutex_);
  return tenant_;
}

} // namespace rc::server
