// The one definition of remote-clang's stable kernel and variable IDs.
// Shared by the clang AST plugin, the LLVM pass, rc-link and the runtime, so
// every component computes the same number for the same symbol.
//
//   external linkage: id = fnv1a64(mangled_name)
//   internal linkage: id = fnv1a64(tu_salt + '\0' + mangled_name)
// where tu_salt is the real path of the translation unit's main source file:
// stable across build directories and build orders, distinct between TUs that
// define a `static __global__` kernel of the same name (ggml does this).
#ifndef RC_KERNEL_ID_H
#define RC_KERNEL_ID_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rc {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

inline uint64_t fnv1a64(const void *data, size_t size,
                        uint64_t hash = kFnvOffset) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= kFnvPrime;
  }
  return hash;
}

inline uint64_t fnv1a64(std::string_view s, uint64_t hash = kFnvOffset) {
  return fnv1a64(s.data(), s.size(), hash);
}

inline uint64_t symbolId(std::string_view mangledName, bool internalLinkage,
                         std::string_view tuSalt) {
  if (!internalLinkage)
    return fnv1a64(mangledName);
  uint64_t h = fnv1a64(tuSalt);
  const char zero = 0;
  h = fnv1a64(&zero, 1, h);
  return fnv1a64(mangledName, h);
}

} // namespace rc

#endif
