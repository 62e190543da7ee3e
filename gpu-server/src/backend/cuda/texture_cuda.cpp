// TextureDevice on the CUDA driver: CUarrays, cuMemcpy3DAsync for every
// array copy, cuTexObjectCreate / cuSurfObjectCreate. The runtime's enums
// (address, filter and read modes, array flags) have the driver's numbers.
#include "backend/cuda/cuda_driver.h"
#include "backend/texture_device.h"
#include "rc/server/errors.h"

#include <cstring>
#include <map>
#include <set>

namespace rc::server {

namespace {

// cudaChannelFormatKind
constexpr int kSigned = 0, kUnsigned = 1, kFloat = 2;
// cudaResourceType
constexpr int kResourceArray = 0, kResourceLinear = 2, kResourcePitch2D = 3;
// cudaTextureReadMode
constexpr int kReadElementType = 0;

bool arrayFormat(const ChannelFormat &f, CUarray_format *out) {
  if (!f.elementBytes())
    return false;
  switch (f.kind * 100 + f.x) {
  case kSigned * 100 + 8:
    *out = CU_AD_FORMAT_SIGNED_INT8;
    return true;
  case kSigned * 100 + 16:
    *out = CU_AD_FORMAT_SIGNED_INT16;
    return true;
  case kSigned * 100 + 32:
    *out = CU_AD_FORMAT_SIGNED_INT32;
    return true;
  case kUnsigned * 100 + 8:
    *out = CU_AD_FORMAT_UNSIGNED_INT8;
    return true;
  case kUnsigned * 100 + 16:
    *out = CU_AD_FORMAT_UNSIGNED_INT16;
    return true;
  case kUnsigned * 100 + 32:
    *out = CU_AD_FORMAT_UNSIGNED_INT32;
    return true;
  case kFloat * 100 + 16:
    *out = CU_AD_FORMAT_HALF;
    return true;
  case kFloat * 100 + 32:
    *out = CU_AD_FORMAT_FLOAT;
    return true;
  default:
    return false;
  }
}

OpStatus badFormat(const ChannelFormat &f) {
  return OpStatus::fail(
      kErrInvalidValue,
      "channel format (" + std::to_string(f.x) + "," + std::to_string(f.y) +
          "," + std::to_string(f.z) + "," + std::to_string(f.w) + ") of kind " +
          std::to_string(f.kind) + " is not one CUDA arrays and textures hold");
}

class CudaTextureDevice : public TextureDevice {
public:
  CudaTextureDevice(const CudaDriver &d, int device) : drv_(d), dev_(device) {}
  ~CudaTextureDevice() override {
    // Objects before the arrays they read; the context goes right after.
    for (auto &[handle, surface] : objects_)
      surface ? drv_.cuSurfObjectDestroy(handle)
              : drv_.cuTexObjectDestroy(handle);
    for (NativeHandle a : arrays_)
      drv_.cuArrayDestroy(reinterpret_cast<CUarray>(a));
  }

  OpStatus arrayCreate(const ArrayShape &shape, NativeHandle *array) override {
    CUDA_ARRAY3D_DESCRIPTOR d = {};
    if (!arrayFormat(shape.format, &d.Format))
      return badFormat(shape.format);
    d.NumChannels = unsigned(shape.format.channels());
    d.Width = shape.width;
    d.Height = shape.height;
    d.Depth = shape.depth;
    d.Flags = shape.flags;
    CUarray a = nullptr;
    OpStatus st = check(drv_.cuArray3DCreate(&a, &d));
    if (st.ok()) {
      *array = reinterpret_cast<NativeHandle>(a);
      arrays_.insert(*array);
    }
    return st;
  }

  OpStatus arrayDestroy(NativeHandle array) override {
    arrays_.erase(array);
    return check(drv_.cuArrayDestroy(reinterpret_cast<CUarray>(array)));
  }

  OpStatus arrayCopy(NativeHandle array, const ArrayBox &box, bool toArray,
                     const LinearSide &other, NativeHandle stream) override {
    CUDA_MEMCPY3D p = {};
    p.WidthInBytes = box.width;
    p.Height = box.height;
    p.Depth = box.depth;
    auto setArray = [&](size_t &x, size_t &y, size_t &z, CUmemorytype &type,
                        CUarray &a) {
      x = box.x, y = box.y, z = box.z;
      type = CU_MEMORYTYPE_ARRAY;
      a = reinterpret_cast<CUarray>(array);
    };
    auto setLinear = [&](CUmemorytype &type, const void *&host,
                         CUdeviceptr &dev, size_t &pitch, size_t &height) {
      if (other.host) {
        type = CU_MEMORYTYPE_HOST;
        host = other.host;
        pitch = box.width;
        height = box.height;
      } else {
        type = CU_MEMORYTYPE_DEVICE;
        dev = other.device;
        pitch = other.pitch;
        height = other.rows;
      }
    };
    if (toArray) {
      setArray(p.dstXInBytes, p.dstY, p.dstZ, p.dstMemoryType, p.dstArray);
      setLinear(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcPitch,
                p.srcHeight);
    } else {
      setArray(p.srcXInBytes, p.srcY, p.srcZ, p.srcMemoryType, p.srcArray);
      const void *host = nullptr;
      setLinear(p.dstMemoryType, host, p.dstDevice, p.dstPitch, p.dstHeight);
      p.dstHost = const_cast<void *>(host);
    }
    OpStatus st = check(drv_.cuMemcpy3DAsync(&p, cudaStreamOf(stream)));
    if (st.ok())
      st = check(drv_.cuStreamSynchronize(cudaStreamOf(stream)));
    return st;
  }

  OpStatus objectCreate(const TextureSpec &spec, uint64_t *handle) override {
    CUDA_RESOURCE_DESC res = {};
    switch (spec.resource) {
    case kResourceArray:
      res.resType = CU_RESOURCE_TYPE_ARRAY;
      res.res.array.hArray = reinterpret_cast<CUarray>(spec.array);
      break;
    case kResourceLinear:
      res.resType = CU_RESOURCE_TYPE_LINEAR;
      res.res.linear.devPtr = spec.device;
      if (!arrayFormat(spec.format, &res.res.linear.format))
        return badFormat(spec.format);
      res.res.linear.numChannels = unsigned(spec.format.channels());
      res.res.linear.sizeInBytes = spec.width;
      break;
    case kResourcePitch2D:
      res.resType = CU_RESOURCE_TYPE_PITCH2D;
      res.res.pitch2D.devPtr = spec.device;
      if (!arrayFormat(spec.format, &res.res.pitch2D.format))
        return badFormat(spec.format);
      res.res.pitch2D.numChannels = unsigned(spec.format.channels());
      res.res.pitch2D.width = spec.width;
      res.res.pitch2D.height = spec.height;
      res.res.pitch2D.pitchInBytes = spec.pitch;
      break;
    default:
      return OpStatus::fail(kErrNotSupported,
                            "resource type " + std::to_string(spec.resource) +
                                " (mipmapped arrays are not served yet)");
    }
    if (spec.surface) {
      CUsurfObject s = 0;
      OpStatus st = check(drv_.cuSurfObjectCreate(&s, &res));
      if (st.ok())
        objects_[ *handle = s] = true;
      return st;
    }
    CUDA_TEXTURE_DESC tex = {};
    for (int i = 0; i < 3; ++i)
      tex.addressMode[i] = CUaddress_mode(spec.addressMode[i]);
    tex.filterMode = CUfilter_mode(spec.filterMode);
    // What cudart does: element-type reads of integer data stay integers.
    if (spec.readMode == kReadElementType)
      tex.flags |= CU_TRSF_READ_AS_INTEGER;
    if (spec.normalizedCoords)
      tex.flags |= CU_TRSF_NORMALIZED_COORDINATES;
    if (spec.srgb)
      tex.flags |= CU_TRSF_SRGB;
    if (spec.seamlessCubemap)
      tex.flags |= CU_TRSF_SEAMLESS_CUBEMAP;
    if (spec.disableTrilinearOptimization)
      tex.flags |= CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION;
    tex.maxAnisotropy = spec.maxAnisotropy;
    std::memcpy(tex.borderColor, spec.borderColor, sizeof tex.borderColor);
    CUtexObject t = 0;
    OpStatus st = check(drv_.cuTexObjectCreate(&t, &res, &tex, nullptr));
    if (st.ok())
      objects_[ *handle = t] = false;
    return st;
  }

  OpStatus objectDestroy(uint64_t handle, bool surface) override {
    objects_.erase(handle);
    return check(surface ? drv_.cuSurfObjectDestroy(handle)
                         : drv_.cuTexObjectDestroy(handle));
  }

  OpStatus linearWidth1D(const ChannelFormat &format,
                         uint64_t *width) override {
    CUarray_format f;
    if (!arrayFormat(format, &f))
      return badFormat(format);
    size_t w = 0;
    OpStatus st = check(drv_.cuDeviceGetTexture1DLinearMaxWidth(
        &w, f, unsigned(format.channels()), CUdevice(dev_)));
    *width = w;
    return st;
  }

private:
  OpStatus check(CUresult r) const { return drv_.status(r); }

  const CudaDriver &drv_;
  int dev_;
  std::set<NativeHandle> arrays_;
  std::map<uint64_t, bool> objects_; // handle -> is a surface
};

} // namespace

std::unique_ptr<TextureDevice> makeCudaTextureDevice(const CudaDriver &driver,
                                                     int device) {
  return std::make_unique<CudaTextureDevice>(driver, device);
}

} // namespace rc::server
