// rc-server's own kernel: a batch's small uploads in one launch (see
// upload_scatter.h). Built to PTX by gpu-server/CMakeLists.txt and compiled
// by the driver when rc-server starts, so it runs on any GPU the server has.
#include "upload_scatter.h"

using namespace rc::server::scatter;

// 16 bytes as one vector: NVPTX splits a uint4 struct copy into two 8-byte
// accesses, an ext_vector is one ld.v4 / st.v4.
typedef uint32_t Bytes16 __attribute__((ext_vector_type(4)));

// Block (x, y) copies bytes [y * kChunkBytes, (y + 1) * kChunkBytes) of
// piece x, 16 per thread. The source is pinned host memory read over PCIe:
// a warp's 16-byte loads make one 512-byte request, and no thread issues a
// second load that waits for its first.
extern "C" __global__ void __launch_bounds__(kThreads)
    rc_upload_scatter(const List list) {
  if (blockIdx.x >= list.count)
    return;
  const Piece piece = list.pieces[blockIdx.x];
  uint32_t at = (blockIdx.y * kThreads + threadIdx.x) * 16;
  if (at >= piece.size)
    return;
  const uint8_t *src =
      reinterpret_cast<const uint8_t *>(list.src) + piece.srcOffset + at;
  uint8_t *dst = reinterpret_cast<uint8_t *>(piece.dst) + at;
  uint32_t n = piece.size - at < 16 ? piece.size - at : 16;
  if (n == 16 && piece.dst % 16 == 0) {
    *reinterpret_cast<Bytes16 *>(dst) = *reinterpret_cast<const Bytes16 *>(src);
    return;
  }
  // A destination off 16-byte alignment, or the piece's tail.
  for (uint32_t i = 0; i < n; ++i)
    dst[i] = src[i];
}
