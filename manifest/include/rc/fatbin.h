// Minimal view of a CUDA fatbin container: enough to know its size and to
// compute the hash that ties a registered fatbin (runtime) to its manifest
// module (rc-link, rc-server). Header-only so the runtime needs no library.
#ifndef RC_FATBIN_H
#define RC_FATBIN_H

#include "rc/kernel_id.h"

#include <cstdint>
#include <cstring>

namespace rc {

constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr uint32_t kFatbinWrapperMagic =
    0x466243B1u; // __cudaRegisterFatBinary arg

struct FatbinHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t headerSize;
  uint64_t fatSize; // bytes after the header
};

// Total size of the fatbin starting at `data`, or 0 if it is not one.
inline uint64_t fatbinSize(const void *data, uint64_t available = UINT64_MAX) {
  if (!data || available < sizeof(FatbinHeader))
    return 0;
  FatbinHeader h;
  std::memcpy(&h, data, sizeof h);
  if (h.magic != kFatbinMagic || h.headerSize < sizeof(FatbinHeader))
    return 0;
  uint64_t total = uint64_t(h.headerSize) + h.fatSize;
  return total <= available ? total : 0;
}

// Hash of exactly the fatbin's bytes (header + images, no section padding).
inline uint64_t fatbinHash(const void *data, uint64_t size) {
  return fnv1a64(data, size);
}

// What `rc-link embed` leaves in an object's .nv_fatbin once the fatbin is in
// the object's manifest fragment. The client never loads GPU code, so the
// device code lives only in <binary>.rcm (llama.cpp's libggml-cuda.so shrinks
// from 194 MB to 16 MB), and the runtime reads the module hash instead of
// hashing the whole fatbin at the first launch. It is a well-formed fatbin
// header (fatbinSize() accepts it) followed by a tag and the hash.
constexpr uint64_t kRemoteStubTag = 0x3130425554534352ull; // "RCSTUB01"

struct RemoteFatbinStub {
  FatbinHeader header;
  uint64_t tag;
  uint64_t moduleHash; // fatbinHash of the fatbin this stub replaced
};
static_assert(sizeof(RemoteFatbinStub) == 32, "stub layout is an ABI");

inline RemoteFatbinStub makeRemoteStub(uint64_t moduleHash) {
  RemoteFatbinStub s{};
  s.header.magic = kFatbinMagic;
  s.header.version = 1;
  s.header.headerSize = sizeof(FatbinHeader);
  s.header.fatSize = sizeof(RemoteFatbinStub) - sizeof(FatbinHeader);
  s.tag = kRemoteStubTag;
  s.moduleHash = moduleHash;
  return s;
}

// True if `data` is a remote stub; its module hash goes to *moduleHash.
inline bool readRemoteStub(const void *data, uint64_t available,
                           uint64_t *moduleHash) {
  if (fatbinSize(data, available) != sizeof(RemoteFatbinStub))
    return false;
  RemoteFatbinStub s;
  std::memcpy(&s, data, sizeof s);
  if (s.tag != kRemoteStubTag)
    return false;
  *moduleHash = s.moduleHash;
  return true;
}

} // namespace rc

#endif
