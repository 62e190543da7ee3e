#include "graphs/user_objects.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace rc::rt {

UserObjects &UserObjects::instance() {
  static UserObjects *objects = new UserObjects; // never destroyed
  return *objects;
}

cudaError_t UserObjects::create(uint64_t *object, void *ptr,
                                cudaHostFn_t destroy, unsigned initialRefcount,
                                unsigned flags) {
  // CUDA requires the flag: destructors run with no CUDA work waiting.
  if (!object || !destroy || initialRefcount == 0 ||
      flags != cudaUserObjectNoDestructorSync)
    return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_++;
  objects_[id] = {ptr, destroy, initialRefcount};
  *object = id;
  return cudaSuccess;
}

bool UserObjects::dropLocked(uint64_t object, uint64_t count, Object *gone) {
  Object &o = objects_[object];
  o.refs -= count;
  if (o.refs)
    return false;
  *gone = o;
  objects_.erase(object);
  return true;
}

cudaError_t UserObjects::retain(uint64_t object, unsigned count) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(object);
  if (it == objects_.end() || count == 0)
    return cudaErrorInvalidValue;
  it->second.refs += count;
  return cudaSuccess;
}

cudaError_t UserObjects::release(uint64_t object, unsigned count) {
  Object gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(object);
    if (it == objects_.end() || count == 0 || count > it->second.refs)
      return cudaErrorInvalidValue;
    if (!dropLocked(object, count, &gone))
      return cudaSuccess;
  }
  gone.destroy(gone.ptr);
  return cudaSuccess;
}

cudaError_t UserObjects::ownerRetain(uint64_t owner, uint64_t object,
                                     unsigned count, bool move) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(object);
  if (it == objects_.end() || count == 0 || (move && count > it->second.refs))
    return cudaErrorInvalidValue;
  if (!move)
    it->second.refs += count;
  owned_[owner][object] += count;
  return cudaSuccess;
}

cudaError_t UserObjects::ownerRelease(uint64_t owner, uint64_t object,
                                      unsigned count) {
  Object gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto refs = owned_[owner].find(object);
    if (refs == owned_[owner].end() || count == 0 || count > refs->second)
      return cudaErrorInvalidValue;
    if ((refs->second -= count) == 0)
      owned_[owner].erase(refs);
    if (!dropLocked(object, count, &gone))
      return cudaSuccess;
  }
  gone.destroy(gone.ptr);
  return cudaSuccess;
}

void UserObjects::ownerGone(uint64_t owner) {
  std::vector<Object> gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = owned_.find(owner);
    if (it == owned_.end())
      return;
    for (auto [object, count] : it->second) {
      Object o;
      if (dropLocked(object, count, &o))
        gone.push_back(o);
    }
    owned_.erase(it);
  }
  for (const Object &o : gone)
    o.destroy(o.ptr);
}

void UserObjects::copyReferences(uint64_t from, uint64_t to) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = owned_.find(from);
  if (it == owned_.end())
    return;
  std::map<uint64_t, uint64_t> refs = it->second; // owned_ may grow
  for (auto [object, count] : refs) {
    objects_[object].refs += count;
    owned_[to][object] += count;
  }
}

} // namespace rc::rt
