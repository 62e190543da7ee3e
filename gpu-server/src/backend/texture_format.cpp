#include "backend/texture_device.h"

namespace rc::server {

uint32_t ChannelFormat::elementBytes() const {
  // CUDA arrays hold 1, 2 or 4 channels of one width, filled from x on.
  const int bits[4] = {x, y, z, w};
  int n = channels();
  if (n == 0 || n == 3 || (x != 8 && x != 16 && x != 32))
    return 0;
  for (int i = 0; i < 4; ++i)
    if (bits[i] != (i < n ? x : 0))
      return 0;
  return uint32_t(n * x / 8);
}

} // namespace rc::server
