// CUDA arrays and texture and surface objects (docs/textures.md). Arrays
// have IDs chosen here, so creating one, freeing one and copying into one
// are batched; reading one back and creating a texture or surface object
// (whose handle is the server's) are round trips. An array copy is split
// into pieces of at most opts_.chunkBytes, as other copies are.
#include "core/arrays.h"

#include "core/runtime.h"

#include "core/enum_number.h"
#include "core/unsupported.h"
#include "rc/channel_format.h"

#include <algorithm>
#include <cstring>

namespace rc::rt {

namespace {

uint64_t addrOf(const void *p) { return uint64_t(uintptr_t(p)); }

// Bytes of one element of a format arrays and textures hold, else 0: the
// widths rc/channel_format.h allows, of a kind with elements that wide.
size_t elementBytes(const cudaChannelFormatDesc &d) {
  int kind = enumNumber(d.f);
  if ((kind != cudaChannelFormatKindSigned &&
       kind != cudaChannelFormatKindUnsigned &&
       kind != cudaChannelFormatKindFloat) ||
      (kind == cudaChannelFormatKindFloat && d.x == 8))
    return 0;
  return rc::channelElementBytes(d.x, d.y, d.z, d.w);
}

wire::ChannelFormat wireFormat(const cudaChannelFormatDesc &d) {
  return wire::ChannelFormat(d.x, d.y, d.z, d.w, enumNumber(d.f));
}

bool fits(size_t a, size_t b, size_t limit) {
  return a <= limit && b <= limit - a;
}

} // namespace

cudaError_t Arrays::arrayLocked(cudaArray_const_t array,
                                const ArrayInfo **out) const {
  auto it = arrays_.find(addrOf(array));
  if (it == arrays_.end())
    return cudaErrorInvalidResourceHandle;
  *out = &it->second;
  return cudaSuccess;
}

cudaError_t Arrays::arrayCreate(cudaArray_t *array,
                                const cudaChannelFormatDesc *desc,
                                cudaExtent extent, unsigned flags) {
  if (!array || !desc)
    return cudaErrorInvalidValue;
  size_t element = elementBytes(*desc);
  if (!element)
    return cudaErrorInvalidChannelDescriptor;
  if (extent.width == 0 || (extent.depth && !extent.height))
    return cudaErrorInvalidValue;
  ArrayInfo info;
  info.desc = *desc;
  info.extent = extent;
  info.flags = flags;
  info.rows = extent.height ? extent.height : 1;
  info.slices = extent.depth ? extent.depth : 1;
  size_t bytes;
  if (__builtin_mul_overflow(extent.width, element, &info.rowBytes) ||
      __builtin_mul_overflow(info.rowBytes, info.rows, &bytes) ||
      __builtin_mul_overflow(bytes, info.slices, &bytes))
    return cudaErrorMemoryAllocation;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.ensureDeviceLocked();
  uint64_t id = nextArray_++;
  wire::ChannelFormat format = wireFormat(*desc);
  rt_.appendLocked(wire::Command::ArrayCreate,
                   wire::CreateArrayCreate(rt_.batch_.fbb(), id, &format,
                                           extent.width, extent.height,
                                           extent.depth, flags)
                       .Union(),
                   {"cudaMallocArray", 0});
  rt_.afterAppendLocked();
  arrays_[id] = info;
  *array = reinterpret_cast<cudaArray_t>(uintptr_t(id));
  return cudaSuccess;
}

cudaError_t Arrays::arrayFree(cudaArray_t array) {
  if (!array)
    return cudaSuccess;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  const ArrayInfo *info = nullptr;
  if (cudaError_t err = arrayLocked(array, &info))
    return err;
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.appendLocked(
      wire::Command::ArrayDestroy,
      wire::CreateArrayDestroy(rt_.batch_.fbb(), addrOf(array)).Union(),
      {"cudaFreeArray", 0});
  rt_.afterAppendLocked();
  arrays_.erase(addrOf(array));
  return cudaSuccess;
}

cudaError_t Arrays::arrayInfo(cudaArray_const_t array,
                              cudaChannelFormatDesc *desc, cudaExtent *extent,
                              unsigned *flags) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  const ArrayInfo *info = nullptr;
  if (cudaError_t err = arrayLocked(array, &info))
    return err;
  if (desc)
    *desc = info->desc;
  if (extent)
    *extent = info->extent;
  if (flags)
    *flags = info->flags;
  return cudaSuccess;
}

cudaError_t Arrays::arrayCopy(cudaArray_const_t array, const ArrayBox &box,
                              bool toArray, void *linear, size_t pitch,
                              size_t rows, cudaMemcpyKind kind,
                              cudaStream_t stream, const char *call) {
  if (box.width == 0 || box.height == 0 || box.depth == 0)
    return cudaSuccess;
  if (!linear)
    return cudaErrorInvalidValue;
  if (pitch < box.width)
    return cudaErrorInvalidPitchValue;
  if (box.depth > 1 && rows < box.height)
    return cudaErrorInvalidValue;
  size_t span, rowsBefore;
  if (__builtin_mul_overflow(rows, box.depth - 1, &rowsBefore) ||
      __builtin_add_overflow(rowsBefore, box.height - 1, &rowsBefore) ||
      __builtin_mul_overflow(rowsBefore, pitch, &span) ||
      __builtin_add_overflow(span, box.width, &span))
    return cudaErrorInvalidValue;
  int k = enumNumber(kind);
  bool known = k == cudaMemcpyDefault || k == cudaMemcpyDeviceToDevice ||
               k == (toArray ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (!known)
    return cudaErrorInvalidMemcpyDirection;
  std::lock_guard<std::mutex> lock(rt_.mu_);
  const ArrayInfo *info = nullptr;
  if (cudaError_t err = arrayLocked(array, &info))
    return err;
  if (!fits(box.x, box.width, info->rowBytes) ||
      !fits(box.y, box.height, info->rows) ||
      !fits(box.z, box.depth, info->slices))
    return cudaErrorInvalidValue;
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  bool device = k == cudaMemcpyDefault ? rt_.isDevicePointerLocked(linear)
                                       : k == cudaMemcpyDeviceToDevice;
  if (device)
    if (cudaError_t err = rt_.checkDeviceRangeLocked(
            call, toArray ? "source" : "destination", linear, span))
      return err;
  uint64_t sid;
  if (cudaError_t err = rt_.streams_.wireStreamLocked(stream, false, &sid))
    return err;
  if (cudaError_t err = rt_.graphs_.refuseInCaptureLocked(sid, call))
    return err;
  rt_.ensureDeviceLocked();
  uint64_t id = addrOf(array);
  auto append = [&](const ArrayBox &b,
                    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> data,
                    uint64_t dev) {
    return rt_.appendLocked(
        wire::Command::ArrayCopy,
        wire::CreateArrayCopy(rt_.batch_.fbb(), id, b.x, b.y, b.z, b.width,
                              b.height, b.depth, toArray, data, dev,
                              dev ? pitch : 0, dev ? rows : 0, sid)
            .Union(),
        {call, 0});
  };
  if (device) { // the server copies between its memories, in order
    append(box, 0, addrOf(linear));
    rt_.afterAppendLocked();
    return cudaSuccess;
  }

  // Host side: pieces of whole rows (or of one row where a row alone is
  // more than a chunk), packed.
  struct Piece {
    ArrayBox box;
    size_t offset; // of its first byte in `linear`
  };
  std::vector<Piece> pieces;
  size_t chunk = std::max<size_t>(rt_.opts_.chunkBytes, 1);
  for (size_t z = 0; z < box.depth; ++z) {
    size_t slice = z * rows * pitch;
    if (box.width <= chunk) {
      size_t band = std::max<size_t>(1, chunk / box.width);
      for (size_t y = 0; y < box.height; y += band)
        pieces.push_back({{box.x, box.y + y, box.z + z, box.width,
                           std::min(band, box.height - y), 1},
                          slice + y * pitch});
    } else {
      for (size_t y = 0; y < box.height; ++y)
        for (size_t x = 0; x < box.width; x += chunk)
          pieces.push_back({{box.x + x, box.y + y, box.z + z,
                             std::min(chunk, box.width - x), 1, 1},
                            slice + y * pitch + x});
    }
  }
  auto *bytes = static_cast<uint8_t *>(linear);
  if (toArray) {
    std::vector<uint8_t> packed;
    for (const Piece &p : pieces) {
      packed.resize(p.box.width * p.box.height);
      for (size_t r = 0; r < p.box.height; ++r)
        std::memcpy(packed.data() + r * p.box.width,
                    bytes + p.offset + r * pitch, p.box.width);
      append(p.box, rt_.batch_.fbb().CreateVector(packed), 0);
      rt_.afterAppendLocked();
    }
    return cudaSuccess;
  }
  // Array to host: each piece lands in a buffer of its own, then its rows
  // go where the program's pitch puts them.
  std::vector<std::vector<uint8_t>> landed(pieces.size());
  Runtime::ReadbackBatches batches(rt_);
  for (size_t i = 0; i < pieces.size(); ++i) {
    size_t n = pieces[i].box.width * pieces[i].box.height;
    if (cudaError_t err = batches.room(n))
      return err;
    landed[i].resize(n);
    Runtime::Sink sink;
    sink.index = append(pieces[i].box, 0, 0);
    sink.payload = landed[i].data();
    sink.payloadSize = n;
    batches.add(sink);
  }
  if (cudaError_t err = batches.send())
    return err;
  rt_.countRoundTripLocked(call);
  if (cudaError_t err = rt_.waitSeqLocked(0, /*all=*/true))
    return err;
  if (cudaError_t err = rt_.takePendingErrorLocked())
    return err;
  for (size_t i = 0; i < pieces.size(); ++i)
    for (size_t r = 0; r < pieces[i].box.height; ++r)
      std::memcpy(bytes + pieces[i].offset + r * pitch,
                  landed[i].data() + r * pieces[i].box.width,
                  pieces[i].box.width);
  return cudaSuccess;
}

cudaError_t Arrays::arrayCopyLinear(cudaArray_const_t array, size_t x, size_t y,
                                    bool toArray, void *linear, size_t count,
                                    cudaMemcpyKind kind, cudaStream_t stream,
                                    const char *call) {
  size_t rowBytes;
  {
    std::lock_guard<std::mutex> lock(rt_.mu_);
    const ArrayInfo *info = nullptr;
    if (cudaError_t err = arrayLocked(array, &info))
      return err;
    rowBytes = info->rowBytes;
  }
  if (x >= rowBytes && count)
    return cudaErrorInvalidValue;
  // The rest of the first row, whole rows, then the start of the last one.
  auto *bytes = static_cast<uint8_t *>(linear);
  while (count) {
    ArrayBox box;
    box.x = x;
    box.y = y;
    size_t rest = rowBytes - x;
    if (x == 0 && count >= rowBytes) {
      box.width = rowBytes;
      box.height = count / rowBytes;
    } else {
      box.width = std::min(rest, count);
    }
    if (cudaError_t err = arrayCopy(array, box, toArray, bytes, box.width,
                                    box.height, kind, stream, call))
      return err;
    size_t moved = box.width * box.height;
    bytes += moved;
    count -= moved;
    y += box.height;
    x = 0;
    if (box.width < rest) // ended inside the row
      break;
  }
  return cudaSuccess;
}

cudaError_t Arrays::textureCreate(uint64_t *object, const cudaResourceDesc *res,
                                  const cudaTextureDesc *tex,
                                  const cudaResourceViewDesc *view,
                                  bool surface) {
  const char *call =
      surface ? "cudaCreateSurfaceObject" : "cudaCreateTextureObject";
  if (!object || !res || (!surface && !tex))
    return cudaErrorInvalidValue;
  if (view)
    return reportUnsupported("cudaCreateTextureObject with a resource view");
  int type = enumNumber(res->resType);
  if (type == cudaResourceTypeMipmappedArray)
    return reportUnsupported(
        surface ? "cudaCreateSurfaceObject of a mipmapped array"
                : "cudaCreateTextureObject of a mipmapped array");
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  uint64_t array = 0, device = 0, width = 0, height = 0, pitch = 0;
  cudaChannelFormatDesc desc{};
  if (type == cudaResourceTypeArray) {
    const ArrayInfo *info = nullptr;
    if (cudaError_t err = arrayLocked(res->res.array.array, &info))
      return err;
    array = addrOf(res->res.array.array);
  } else if (!surface && type == cudaResourceTypeLinear) {
    desc = res->res.linear.desc;
    device = addrOf(res->res.linear.devPtr);
    width = res->res.linear.sizeInBytes;
    if (cudaError_t err = rt_.checkDeviceRangeLocked(
            call, "texture memory", res->res.linear.devPtr, width))
      return err;
  } else if (!surface && type == cudaResourceTypePitch2D) {
    desc = res->res.pitch2D.desc;
    device = addrOf(res->res.pitch2D.devPtr);
    width = res->res.pitch2D.width;
    height = res->res.pitch2D.height;
    pitch = res->res.pitch2D.pitchInBytes;
    size_t element = elementBytes(desc), span;
    if (!element || height == 0 || pitch < width * element ||
        !pitchedSpan(pitch, width * element, height, &span))
      return element ? cudaErrorInvalidPitchValue
                     : cudaErrorInvalidChannelDescriptor;
    if (cudaError_t err = rt_.checkDeviceRangeLocked(
            call, "texture memory", res->res.pitch2D.devPtr, span))
      return err;
  } else {
    return cudaErrorInvalidValue;
  }
  rt_.ensureDeviceLocked();
  wire::ChannelFormat format = wireFormat(desc);
  auto &fbb = rt_.batch_.fbb();
  flatbuffers::Offset<flatbuffers::Vector<int32_t>> modes;
  flatbuffers::Offset<flatbuffers::Vector<float>> border;
  if (!surface) {
    int m[3] = {enumNumber(tex->addressMode[0]),
                enumNumber(tex->addressMode[1]),
                enumNumber(tex->addressMode[2])};
    modes = fbb.CreateVector(m, 3);
    border = fbb.CreateVector(tex->borderColor, 4);
  }
  uint32_t index = rt_.appendLocked(
      wire::Command::TextureCreate,
      wire::CreateTextureCreate(
          fbb, surface, type, array, device, &format, width, height, pitch,
          modes, surface ? 0 : enumNumber(tex->filterMode),
          surface ? 0 : enumNumber(tex->readMode), !surface && tex->sRGB,
          border, !surface && tex->normalizedCoords,
          surface ? 0 : tex->maxAnisotropy, !surface && tex->seamlessCubemap,
          !surface && tex->disableTrilinearOptimization)
          .Union(),
      {call, 0});
  bool filled = false;
  uint64_t handle = 0;
  Runtime::Sink sink;
  sink.index = index;
  sink.addr = &handle;
  sink.filled = &filled;
  if (cudaError_t err = rt_.roundTripLocked({sink}, /*sync=*/false))
    return err;
  if (!filled)
    return cudaErrorUnknown;
  textureObjects_[handle] = surface;
  *object = handle;
  return cudaSuccess;
}

cudaError_t Arrays::textureDestroy(uint64_t object, bool surface) {
  std::lock_guard<std::mutex> lock(rt_.mu_);
  auto it = textureObjects_.find(object);
  if (it == textureObjects_.end() || it->second != surface)
    return cudaErrorInvalidValue;
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;
  rt_.appendLocked(
      wire::Command::TextureDestroy,
      wire::CreateTextureDestroy(rt_.batch_.fbb(), object, surface).Union(),
      {surface ? "cudaDestroySurfaceObject" : "cudaDestroyTextureObject", 0});
  rt_.afterAppendLocked();
  textureObjects_.erase(it);
  return cudaSuccess;
}

} // namespace rc::rt
