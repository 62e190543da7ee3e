// The descriptors each texture and surface object was made from, kept on
// the client for cudaGetTextureObjectResourceDesc and its siblings: the
// server holds the object, the client holds what it asked for.
#ifndef RC_RT_TEXTURE_DESCRIPTORS_H
#define RC_RT_TEXTURE_DESCRIPTORS_H

#include <driver_types.h>
#include <texture_types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

namespace rc::rt {

class TextureDescriptors {
public:
  static TextureDescriptors &instance();

  void made(uint64_t object, bool surface, const cudaResourceDesc &res,
            const cudaTextureDesc *tex);
  void destroyed(uint64_t object, bool surface);
  // False when no object of ours has that handle.
  bool resource(uint64_t object, bool surface, cudaResourceDesc *out);
  bool texture(uint64_t object, cudaTextureDesc *out);

private:
  struct Descriptors {
    cudaResourceDesc res{};
    cudaTextureDesc tex{};
  };
  std::mutex mu_;
  std::map<std::pair<bool, uint64_t>, Descriptors> objects_; // (surface, id)
};

} // namespace rc::rt

#endif
