// CUDA arrays and texture and surface objects (docs/textures.md). Every
// box is checked against its array and every device range against the
// session's allocations before the backend acts. Texture and surface
// handles are the driver's, in the session's own context: a kernel given
// another session's handle reads nothing of that session.
#include "executor/texture_commands.h"
#include "backend/texture_device.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

namespace rc::server {

namespace {

// cudaResourceType
constexpr int kResourceArray = 0, kResourceLinear = 2, kResourcePitch2D = 3;
// cudaArraySurfaceLoadStore
constexpr uint32_t kArraySurfaceLoadStore = 0x02;

ChannelFormat formatOf(const wire::ChannelFormat *f) {
  ChannelFormat out;
  if (f)
    out = ChannelFormat{f->x(), f->y(), f->z(), f->w(), f->kind()};
  return out;
}

std::string boxText(uint64_t x, uint64_t y, uint64_t z, uint64_t w, uint64_t h,
                    uint64_t d) {
  return "box at (" + std::to_string(x) + " bytes, " + std::to_string(y) +
         ", " + std::to_string(z) + ") of " + std::to_string(w) + " bytes x " +
         std::to_string(h) + " x " + std::to_string(d);
}

// a + b <= limit without overflow
bool fits(uint64_t a, uint64_t b, uint64_t limit) {
  return a <= limit && b <= limit - a;
}

} // namespace

OpStatus TextureCommands::sessionArray(uint64_t id, ArrayRecord **out) {
  auto it = arrays_.find(id);
  if (it == arrays_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown CUDA array " + hexAddress(id));
  *out = &it->second;
  return devices_.bind(it->second.device);
}

OpStatus TextureCommands::handle(const wire::ArrayCreate &c, CommandAnswer &) {
  if (c.array() == 0 || arrays_.count(c.array()))
    return OpStatus::fail(kErrInvalidValue,
                          "array handle " + hexAddress(c.array()) +
                              " is reserved or already in use");
  ArrayShape shape;
  shape.format = formatOf(c.format());
  shape.width = c.width();
  shape.height = c.height();
  shape.depth = c.depth();
  shape.flags = c.flags();
  uint32_t element = shape.format.elementBytes();
  if (!element)
    return OpStatus::fail(kErrInvalidChannelDescriptor,
                          "a CUDA array holds 1, 2 or 4 channels of 8, 16 or "
                          "32 bits each");
  if (shape.width == 0 || (shape.depth && !shape.height))
    return OpStatus::fail(kErrInvalidValue,
                          "array of " + std::to_string(shape.width) + " x " +
                              std::to_string(shape.height) + " x " +
                              std::to_string(shape.depth) + " elements");
  ArrayRecord r;
  r.device = devices_.bound();
  r.rows = shape.height ? shape.height : 1;
  r.slices = shape.depth ? shape.depth : 1;
  r.flags = shape.flags;
  uint64_t bytes;
  if (__builtin_mul_overflow(shape.width, uint64_t(element), &r.rowBytes) ||
      __builtin_mul_overflow(r.rowBytes, r.rows, &bytes) ||
      __builtin_mul_overflow(bytes, r.slices, &bytes))
    return OpStatus::fail(kErrMemoryAllocation, "array size overflows");
  std::string why;
  if (!(r.charge = HeldBytes::take(memory_.budgets(), bytes, &why)))
    return OpStatus::fail(kErrMemoryAllocation, why);
  OpStatus st = devices_.ctx()->textures()->arrayCreate(shape, &r.native);
  if (st.ok())
    arrays_[c.array()] = r;
  return st;
}

OpStatus TextureCommands::handle(const wire::ArrayDestroy &c, CommandAnswer &) {
  ArrayRecord *r = nullptr;
  OpStatus st = sessionArray(c.array(), &r);
  if (!st.ok() ||
      !(st = devices_.ctx()->textures()->arrayDestroy(r->native)).ok())
    return st;
  arrays_.erase(c.array());
  return st;
}

OpStatus TextureCommands::handle(const wire::ArrayCopy &c, CommandAnswer &a) {
  ArrayRecord *r = nullptr;
  OpStatus st = sessionArray(c.array(), &r);
  if (!st.ok())
    return st;
  *a.what = c.to_array() ? "copy into a CUDA array" : "copy from a CUDA array";
  ArrayBox box{c.x(), c.y(), c.z(), c.width(), c.height(), c.depth()};
  std::string where =
      boxText(box.x, box.y, box.z, box.width, box.height, box.depth);
  if (!box.width || !box.height || !box.depth)
    return OpStatus::fail(kErrInvalidValue, "empty " + where);
  if (!fits(box.x, box.width, r->rowBytes) ||
      !fits(box.y, box.height, r->rows) || !fits(box.z, box.depth, r->slices))
    return OpStatus::fail(kErrInvalidValue,
                          where + " is not inside the array's " +
                              std::to_string(r->rowBytes) + " bytes x " +
                              std::to_string(r->rows) + " x " +
                              std::to_string(r->slices));
  uint64_t packed = box.width * box.height * box.depth; // fits the array
  LinearSide other;
  std::vector<uint8_t> readBuffer;
  if (c.device()) {
    other.device = c.device();
    other.pitch = c.device_pitch();
    other.rows = c.device_rows();
    uint64_t rowsBefore = 0, span = 0;
    if (other.pitch < box.width || (box.depth > 1 && other.rows < box.height) ||
        __builtin_mul_overflow(other.rows, box.depth - 1, &rowsBefore) ||
        __builtin_add_overflow(rowsBefore, box.height - 1, &rowsBefore) ||
        __builtin_mul_overflow(rowsBefore, other.pitch, &span) ||
        __builtin_add_overflow(span, box.width, &span))
      return OpStatus::fail(kErrInvalidPitchValue,
                            "device pitch " + std::to_string(other.pitch) +
                                " and " + std::to_string(other.rows) +
                                " rows per slice do not hold the " + where);
    if (!(st = memory_.checkRange("device", other.device, span)).ok())
      return st;
  } else if (c.to_array()) {
    if (!c.data() || c.data()->size() != packed)
      return OpStatus::fail(kErrInvalidValue,
                            std::to_string(c.data() ? c.data()->size() : 0) +
                                " bytes of data for a " + where);
    other.host = const_cast<uint8_t *>(c.data()->data());
  } else {
    if (!(st = reply_.reserve(packed)).ok())
      return st;
    uint8_t *dst = nullptr;
    a.result.payload =
        reply_.builder().CreateUninitializedVector<uint8_t>(packed, &dst);
    other.host = dst;
  }
  NativeHandle s = 0;
  if (!(st = devices_.bindStream(c.stream(), &s)).ok())
    return st;
  if (devices_.bound() != r->device)
    return OpStatus::fail(
        kErrInvalidValue,
        "the stream is on device " + std::to_string(devices_.bound()) +
            ", the array on device " + std::to_string(r->device));
  st = devices_.syncResult(devices_.ctx()->textures()->arrayCopy(
      r->native, box, c.to_array(), other, s));
  if (st.ok() && !c.to_array() && !c.device())
    a.give();
  return st;
}

OpStatus TextureCommands::handle(const wire::TextureCreate &c,
                                 CommandAnswer &a) {
  *a.what = c.surface() ? "cudaCreateSurfaceObject" : "cudaCreateTextureObject";
  TextureSpec spec;
  spec.surface = c.surface();
  spec.resource = c.resource();
  spec.format = formatOf(c.format());
  spec.width = c.width();
  spec.height = c.height();
  spec.pitch = c.pitch();
  OpStatus st;
  if (spec.resource == kResourceArray) {
    ArrayRecord *r = nullptr;
    if (!(st = sessionArray(c.array(), &r)).ok())
      return st;
    if (spec.surface && !(r->flags & kArraySurfaceLoadStore))
      return OpStatus::fail(kErrInvalidValue,
                            "a surface needs an array made with "
                            "cudaArraySurfaceLoadStore");
    spec.array = r->native;
  } else if (spec.surface) {
    return OpStatus::fail(kErrInvalidValue,
                          "a surface object's resource must be an array");
  } else if (spec.resource == kResourceLinear ||
             spec.resource == kResourcePitch2D) {
    uint32_t element = spec.format.elementBytes();
    if (!element)
      return OpStatus::fail(kErrInvalidChannelDescriptor,
                            "a texture reads 1, 2 or 4 channels of 8, 16 or "
                            "32 bits each");
    uint64_t span = spec.width, rowBytes = 0;
    if (spec.resource == kResourcePitch2D &&
        (__builtin_mul_overflow(spec.width, uint64_t(element), &rowBytes) ||
         spec.height == 0 || spec.pitch < rowBytes ||
         __builtin_mul_overflow(spec.pitch, spec.height - 1, &span) ||
         __builtin_add_overflow(span, rowBytes, &span)))
      return OpStatus::fail(kErrInvalidPitchValue,
                            "pitch " + std::to_string(spec.pitch) +
                                " for rows of " + std::to_string(spec.width) +
                                " elements of " + std::to_string(element) +
                                " bytes");
    int device = 0;
    if (!(st = memory_.checkRange("texture memory", c.device(), span, &device))
             .ok() ||
        !(st = devices_.bind(device)).ok())
      return st;
    spec.device = c.device();
  } else {
    return OpStatus::fail(kErrNotSupported,
                          "resource type " + std::to_string(spec.resource) +
                              " (mipmapped arrays are not served yet)");
  }
  if (!c.surface()) {
    if (!c.address_mode() || c.address_mode()->size() != 3 ||
        !c.border_color() || c.border_color()->size() != 4)
      return OpStatus::fail(kErrInvalidValue,
                            "a texture description needs three address "
                            "modes and four border colour components");
    for (int i = 0; i < 3; ++i)
      spec.addressMode[i] = c.address_mode()->Get(i);
    for (int i = 0; i < 4; ++i)
      spec.borderColor[i] = c.border_color()->Get(i);
    spec.filterMode = c.filter_mode();
    spec.readMode = c.read_mode();
    spec.srgb = c.srgb();
    spec.normalizedCoords = c.normalized_coords();
    spec.maxAnisotropy = c.max_anisotropy();
    spec.seamlessCubemap = c.seamless_cubemap();
    spec.disableTrilinearOptimization = c.disable_trilinear_optimization();
  }
  uint64_t handle = 0;
  if (!(st = devices_.ctx()->textures()->objectCreate(spec, &handle)).ok())
    return st;
  if (textureObjects_.count(handle)) { // the same value on another device
    devices_.ctx()->textures()->objectDestroy(handle, spec.surface);
    return OpStatus::fail(kErrNotSupported,
                          "the driver's handle " + hexAddress(handle) +
                              " names an object of another device too");
  }
  textureObjects_[handle] = TextureObject{devices_.bound(), spec.surface};
  a.result.addr = handle;
  a.give();
  return st;
}

OpStatus TextureCommands::handle(const wire::TextureDestroy &c,
                                 CommandAnswer &a) {
  *a.what =
      c.surface() ? "cudaDestroySurfaceObject" : "cudaDestroyTextureObject";
  auto it = textureObjects_.find(c.handle());
  if (it == textureObjects_.end() || it->second.surface != c.surface())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          std::string("unknown ") +
                              (c.surface() ? "surface" : "texture") +
                              " object " + hexAddress(c.handle()));
  OpStatus st = devices_.bind(it->second.device);
  if (!st.ok() ||
      !(st = devices_.ctx()->textures()->objectDestroy(c.handle(), c.surface()))
           .ok())
    return st;
  textureObjects_.erase(it);
  return st;
}

} // namespace rc::server
