// TextureDevice of the host test device: an array is an allocation of the
// context (accounted like any other, so an array too large for the device
// fails as on a GPU) with its rows packed (elements x rows x slices, layers
// counting as slices); a texture or surface object is only a handle.
// Nothing samples them (kernels do not run here); copies into and out of
// arrays do, so tests see the bytes.
#include "backend/texture_device.h"
#include "rc/server/errors.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace rc::server {

namespace {

struct HostArray {
  uint64_t addr = 0; // the allocation's fake device address
  uint64_t rowBytes = 0, rows = 0;
};

class HostTextureDevice : public TextureDevice {
public:
  HostTextureDevice(DeviceContext &context, ResolveDevice resolve)
      : context_(context), resolve_(std::move(resolve)) {}

  OpStatus arrayCreate(const ArrayShape &shape, NativeHandle *array) override {
    uint32_t element = shape.format.elementBytes();
    if (!element)
      return OpStatus::fail(kErrInvalidValue, "unsupported channel format");
    HostArray a;
    a.rowBytes = shape.width * element; // the executor checked for overflow
    a.rows = shape.height ? shape.height : 1;
    OpStatus st = context_.malloc(
        a.rowBytes * a.rows * (shape.depth ? shape.depth : 1), &a.addr);
    if (!st.ok())
      return st;
    *array = next_++;
    arrays_[*array] = std::move(a);
    return OpStatus::success();
  }

  OpStatus arrayDestroy(NativeHandle array) override {
    auto it = arrays_.find(array);
    OpStatus st = context_.free(it->second.addr);
    arrays_.erase(it);
    return st;
  }

  OpStatus arrayCopy(NativeHandle array, const ArrayBox &box, bool toArray,
                     const LinearSide &other, NativeHandle) override {
    HostArray &a = arrays_.at(array);
    uint8_t *base = resolve_(a.addr, 1);
    uint64_t pitch = other.host ? box.width : other.pitch;
    uint64_t rows = other.host ? box.height : other.rows;
    for (uint64_t z = 0; z < box.depth; ++z)
      for (uint64_t y = 0; y < box.height; ++y) {
        uint8_t *inArray =
            base + ((box.z + z) * a.rows + box.y + y) * a.rowBytes + box.x;
        uint64_t offset = (z * rows + y) * pitch;
        uint8_t *linear = other.host
                              ? other.host + offset
                              : resolve_(other.device + offset, box.width);
        if (!linear)
          return OpStatus::fail(kErrInvalidValue, "row outside device memory");
        toArray ? std::memcpy(inArray, linear, box.width)
                : std::memcpy(linear, inArray, box.width);
      }
    return OpStatus::success();
  }

  OpStatus objectCreate(const TextureSpec &, uint64_t *handle) override {
    *handle = next_++;
    return OpStatus::success();
  }

  OpStatus objectDestroy(uint64_t, bool) override {
    return OpStatus::success();
  }

  // A model of the driver's table: 2^28 elements (the host device's
  // MAXIMUM_TEXTURE1D_LINEAR_WIDTH) of up to 4 bytes, fewer of wider ones
  // (2^30 bytes in all), so that a test sees the format travel. A kind
  // without a driver format (8-bit float, unknown) is refused as the
  // driver refuses it.
  OpStatus linearWidth1D(const ChannelFormat &format,
                         uint64_t *width) override {
    constexpr int kFloat = 2;
    uint32_t element = format.elementBytes();
    if (!element || format.kind < 0 || format.kind > kFloat ||
        (format.kind == kFloat && format.x == 8))
      return OpStatus::fail(kErrInvalidValue,
                            "channel format of kind " +
                                std::to_string(format.kind) +
                                " is not one CUDA textures read");
    constexpr uint64_t kMaxElements = uint64_t(1) << 28;
    constexpr uint64_t kMaxBytes = uint64_t(1) << 30;
    *width = std::min(kMaxElements, kMaxBytes / element);
    return OpStatus::success();
  }

private:
  DeviceContext &context_;
  ResolveDevice resolve_;
  std::map<NativeHandle, HostArray> arrays_;
  NativeHandle next_ = 1;
};

} // namespace

std::unique_ptr<TextureDevice> makeHostTextureDevice(DeviceContext &context,
                                                     ResolveDevice resolve) {
  return std::make_unique<HostTextureDevice>(context, std::move(resolve));
}

} // namespace rc::server
