#include "backend/module_library.h"

#include "rc/fatbin.h"

#include <cstring>

namespace rc::server {

ModuleLibrary::~ModuleLibrary() {
  for (auto &kv : byHash_)
    unload_(kv.second.module);
}

OpStatus ModuleLibrary::acquire(const uint8_t *image, size_t size,
                                NativeHandle *module) {
  const uint64_t hash = fatbinHash(image, size);
  std::lock_guard<std::mutex> lock(mutex_);
  auto [first, last] = byHash_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    Entry &e = it->second;
    if (e.image.size() == size &&
        std::memcmp(e.image.data(), image, size) == 0) {
      ++e.holders;
      *module = e.module;
      return OpStatus::success();
    }
  }
  Entry e;
  e.image.assign(image, image + size);
  OpStatus st = load_(e.image, &e.module);
  if (!st.ok())
    return st;
  e.holders = 1;
  *module = e.module;
  byHash_.emplace(hash, std::move(e));
  return st;
}

void ModuleLibrary::release(NativeHandle module) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = byHash_.begin(); it != byHash_.end(); ++it)
    if (it->second.module == module) {
      if (--it->second.holders == 0) {
        unload_(module);
        byHash_.erase(it);
      }
      return;
    }
}

size_t ModuleLibrary::loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return byHash_.size();
}

} // namespace rc::server
