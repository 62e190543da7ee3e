// The layout shared by rc-server (gpu-server/src/cuda_backend.cpp) and its
// upload scatter kernel (upload_scatter.cu): one launch that copies several
// small host-to-device uploads out of a pinned staging slot, in place of one
// cuMemcpyHtoDAsync each. Plain C++ so both compilers read it alike.
#ifndef RC_SERVER_UPLOAD_SCATTER_H
#define RC_SERVER_UPLOAD_SCATTER_H

#include <stdint.h>

namespace rc::server::scatter {

// Uploads one launch carries. The list travels as the kernel's parameter
// (528 bytes), so the kernel reads it from the constant bank, not over PCIe.
constexpr uint32_t kMaxPieces = 32;
// Each thread copies 16 bytes; a block covers kChunkBytes of one piece.
constexpr uint32_t kThreads = 256;
constexpr uint32_t kChunkBytes = kThreads * 16;

struct Piece {
  uint64_t dst;       // device address (any alignment)
  uint32_t srcOffset; // into the staging slot (16-byte aligned)
  uint32_t size;      // bytes
};

struct List {
  uint64_t src;   // the staging slot's device address (mapped pinned memory)
  uint32_t count; // pieces used
  Piece pieces[kMaxPieces];
};
static_assert(sizeof(Piece) == 16 && sizeof(List) == 16 + 16 * kMaxPieces,
              "host and device must agree on the layout");

// The kernel's name in the PTX.
constexpr const char *kKernelName = "rc_upload_scatter";

} // namespace rc::server::scatter

#endif
