// The runtime's opaque CUDA handles (streams, events, graphs, graph nodes,
// executable graphs) are IDs dressed as pointers: never dereferenced, only
// looked up in the tables that issued them.
#ifndef RC_RT_HANDLE_H
#define RC_RT_HANDLE_H

#include <cstdint>

namespace rc::rt {

inline uint64_t handleId(const void *h) { return uint64_t(uintptr_t(h)); }

template <typename T> T toHandle(uint64_t id) {
  return reinterpret_cast<T>(uintptr_t(id));
}

} // namespace rc::rt

#endif
