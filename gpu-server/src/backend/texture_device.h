// CUDA arrays and texture and surface objects of one session's context
// (docs/textures.md). The executor has checked every box against its array
// and every device range against the session's allocations before it calls
// in here.
#ifndef RC_SERVER_TEXTURE_DEVICE_H
#define RC_SERVER_TEXTURE_DEVICE_H

#include "rc/channel_format.h"
#include "rc/server/backend.h"

namespace rc::server {

// cudaChannelFormatDesc: bits per channel and cudaChannelFormatKind.
struct ChannelFormat {
  int x = 0, y = 0, z = 0, w = 0;
  int kind = 0;
  int channels() const { return (x > 0) + (y > 0) + (z > 0) + (w > 0); }
  // Bytes of one element; 0 for a format arrays cannot hold.
  uint32_t elementBytes() const { return channelElementBytes(x, y, z, w); }
};

// Sizes in elements; height 0 for 1D, depth 0 for 1D and 2D (CUDA's rule).
struct ArrayShape {
  ChannelFormat format;
  uint64_t width = 0, height = 0, depth = 0;
  uint32_t flags = 0; // cudaArrayLayered, cudaArraySurfaceLoadStore, ...
};

// A box of an array: x and width in bytes, the rest in rows and slices.
struct ArrayBox {
  uint64_t x = 0, y = 0, z = 0;
  uint64_t width = 0, height = 1, depth = 1;
};

// The linear side of an array copy: host bytes (rows packed) or pitched
// device memory.
struct LinearSide {
  uint8_t *host = nullptr;
  uint64_t device = 0;
  uint64_t pitch = 0; // bytes per row
  uint64_t rows = 0;  // rows per slice
};

// What cudaCreateTextureObject / cudaCreateSurfaceObject were given; the
// enums keep the runtime's numbers, which are the driver's.
struct TextureSpec {
  bool surface = false;
  int resource = 0; // cudaResourceType
  NativeHandle array = 0;
  uint64_t device = 0;
  ChannelFormat format;
  uint64_t width = 0, height = 0, pitch = 0;
  int addressMode[3] = {0, 0, 0};
  int filterMode = 0;
  int readMode = 0;
  bool srgb = false;
  float borderColor[4] = {0, 0, 0, 0};
  bool normalizedCoords = false;
  uint32_t maxAnisotropy = 0;
  bool seamlessCubemap = false;
  bool disableTrilinearOptimization = false;
};

class TextureDevice {
public:
  virtual ~TextureDevice() = default;
  virtual OpStatus arrayCreate(const ArrayShape &shape,
                               NativeHandle *array) = 0;
  virtual OpStatus arrayDestroy(NativeHandle array) = 0;
  // Copies the box of `array` to or from `other` in stream order on
  // `stream`, and returns once the copy ended (the host side may be gone
  // right after).
  virtual OpStatus arrayCopy(NativeHandle array, const ArrayBox &box,
                             bool toArray, const LinearSide &other,
                             NativeHandle stream) = 0;
  virtual OpStatus objectCreate(const TextureSpec &spec, uint64_t *handle) = 0;
  virtual OpStatus objectDestroy(uint64_t handle, bool surface) = 0;
  // cudaDeviceGetTexture1DLinearMaxWidth: the widest 1D texture over
  // linear memory of `format`, in elements, on this context's device.
  virtual OpStatus linearWidth1D(const ChannelFormat &format,
                                 uint64_t *width) = 0;
};

struct CudaDriver;
// texture_cuda.cpp: arrays and objects of the CUDA context current on the
// session's thread (each DeviceContext makes its own); `device` is the
// context's CUdevice.
std::unique_ptr<TextureDevice> makeCudaTextureDevice(const CudaDriver &driver,
                                                     int device);

// texture_host.cpp: the host test device's, in allocations of `context`;
// `resolve` maps a device range of the context to its bytes (null outside).
using ResolveDevice = std::function<uint8_t *(uint64_t addr, uint64_t size)>;
std::unique_ptr<TextureDevice> makeHostTextureDevice(DeviceContext &context,
                                                     ResolveDevice resolve);

} // namespace rc::server

#endif
