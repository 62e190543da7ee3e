#include "graveyard.h"

#include <sys/mman.h>

#include <map>
#include <mutex>
#include <string>

namespace rc::transport::detail {

namespace {
std::string key(const std::vector<uint8_t> &raw) {
  return std::string(raw.begin(), raw.end());
}
} // namespace

void parkUntilPeerCloses(std::unique_ptr<Endpoint> ep,
                         const std::vector<uint8_t> &peerAddress) {
  static std::mutex mu;
  // Leaked on purpose: parked endpoints must outlive static destruction.
  static auto *parked = new std::map<std::string, std::unique_ptr<Endpoint>>();
  std::unique_ptr<Endpoint> peer;
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = parked->find(key(peerAddress));
    if (it == parked->end()) {
      std::string k = key(ep->address());
      (*parked)[k] = std::move(ep);
      return;
    }
    peer = std::move(it->second);
    parked->erase(it);
  }
  // Both sides are done: close both (outside the lock).
  ep.reset();
  peer.reset();
}

void parkForever(std::unique_ptr<Endpoint> ep) {
  // Remove the region's name now: our mapping (the only user) stays valid,
  // and nothing is left in /dev/shm since the endpoint is never closed.
  std::string addr(ep->address().begin(), ep->address().end());
  addr = addr.c_str(); // drop the terminating NUL
  const std::string scheme = "fi_shm://";
  if (addr.compare(0, scheme.size(), scheme) == 0 &&
      addr.find('/', scheme.size()) == std::string::npos)
    shm_unlink(addr.substr(scheme.size()).c_str());
  static std::mutex mu;
  static auto *kept = new std::vector<std::unique_ptr<Endpoint>>();
  std::lock_guard<std::mutex> g(mu);
  kept->push_back(std::move(ep));
}

} // namespace rc::transport::detail
