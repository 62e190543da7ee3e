#include "api/texture_descriptors.h"

namespace rc::rt {

TextureDescriptors &TextureDescriptors::instance() {
  static TextureDescriptors *kept = new TextureDescriptors; // never destroyed
  return *kept;
}

void TextureDescriptors::made(uint64_t object, bool surface,
                              const cudaResourceDesc &res,
                              const cudaTextureDesc *tex) {
  std::lock_guard<std::mutex> lock(mu_);
  Descriptors &d = objects_[{surface, object}];
  d.res = res;
  d.tex = tex ? *tex : cudaTextureDesc{};
}

void TextureDescriptors::destroyed(uint64_t object, bool surface) {
  std::lock_guard<std::mutex> lock(mu_);
  objects_.erase({surface, object});
}

bool TextureDescriptors::resource(uint64_t object, bool surface,
                                  cudaResourceDesc *out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find({surface, object});
  if (it == objects_.end())
    return false;
  *out = it->second.res;
  return true;
}

bool TextureDescriptors::texture(uint64_t object, cudaTextureDesc *out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find({false, object});
  if (it == objects_.end())
    return false;
  *out = it->second.tex;
  return true;
}

} // namespace rc::rt
