// Which channel widths a CUDA array or texture holds, and the bytes of one
// element: 1, 2 or 4 channels of one width of 8, 16 or 32 bits, filled
// from x on. The client runtime refuses another format at the call, and
// rc-server again before the driver sees it; both ask here.
#ifndef RC_CHANNEL_FORMAT_H
#define RC_CHANNEL_FORMAT_H

#include <cstdint>

namespace rc {

// Bits per channel as cudaChannelFormatDesc has them; 0 for a format no
// array holds.
inline uint32_t channelElementBytes(int x, int y, int z, int w) {
  const int bits[4] = {x, y, z, w};
  int n = (x > 0) + (y > 0) + (z > 0) + (w > 0);
  if (n == 0 || n == 3 || (x != 8 && x != 16 && x != 32))
    return 0;
  for (int i = 0; i < 4; ++i)
    if (bits[i] != (i < n ? x : 0))
      return 0;
  return uint32_t(n * x / 8);
}

} // namespace rc

#endif
