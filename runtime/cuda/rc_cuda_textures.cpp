// librc_cuda's CUDA arrays and texture and surface objects
// (docs/textures.md): the runtime's, with the driver's descriptors
// translated. A driver array format is a channel format of the runtime's
// (normalized-integer, NV12 and block-compressed formats have none and are
// refused by name), and the texture flags are the runtime's read mode,
// coordinates and filtering switches.
#include "cu_context.h"
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>

extern "C" int __rc_report_unsupported(const char *call, const char *library);

using rc::cu::fromRuntime;
using rc::cu::ptr;

namespace {

CUresult unsupported(const char *what) {
  __rc_report_unsupported(what, "driver library");
  return CUDA_ERROR_NOT_SUPPORTED;
}

// ---- formats
// ------------------------------------------------------------------

bool channelFormat(CUarray_format format, unsigned channels,
                   cudaChannelFormatDesc *out) {
  int number;
  std::memcpy(&number, &format, sizeof number);
  int bits = 0;
  cudaChannelFormatKind kind = cudaChannelFormatKindUnsigned;
  switch (number) {
  case CU_AD_FORMAT_UNSIGNED_INT8:
  case CU_AD_FORMAT_UNSIGNED_INT16:
  case CU_AD_FORMAT_UNSIGNED_INT32:
    bits = 8 << (number - CU_AD_FORMAT_UNSIGNED_INT8);
    break;
  case CU_AD_FORMAT_SIGNED_INT8:
  case CU_AD_FORMAT_SIGNED_INT16:
  case CU_AD_FORMAT_SIGNED_INT32:
    bits = 8 << (number - CU_AD_FORMAT_SIGNED_INT8);
    kind = cudaChannelFormatKindSigned;
    break;
  case CU_AD_FORMAT_HALF:
    bits = 16;
    kind = cudaChannelFormatKindFloat;
    break;
  case CU_AD_FORMAT_FLOAT:
    bits = 32;
    kind = cudaChannelFormatKindFloat;
    break;
  default:
    return false;
  }
  if (channels != 1 && channels != 2 && channels != 4)
    return false;
  *out = cudaCreateChannelDesc(bits, channels > 1 ? bits : 0,
                               channels > 2 ? bits : 0, channels > 2 ? bits : 0,
                               kind);
  return true;
}

CUresult formatOrRefuse(CUarray_format format, unsigned channels,
                        cudaChannelFormatDesc *out, const char *call) {
  if (channelFormat(format, channels, out))
    return CUDA_SUCCESS;
  int number;
  std::memcpy(&number, &format, sizeof number);
  bool plain = number == CU_AD_FORMAT_UNSIGNED_INT8 ||
               number == CU_AD_FORMAT_UNSIGNED_INT16 ||
               number == CU_AD_FORMAT_UNSIGNED_INT32 ||
               number == CU_AD_FORMAT_SIGNED_INT8 ||
               number == CU_AD_FORMAT_SIGNED_INT16 ||
               number == CU_AD_FORMAT_SIGNED_INT32 ||
               number == CU_AD_FORMAT_HALF || number == CU_AD_FORMAT_FLOAT;
  if (plain)
    return CUDA_ERROR_INVALID_VALUE; // a channel count the driver refuses
  return unsupported(call);
}

void driverFormat(const cudaChannelFormatDesc &d, CUarray_format *format,
                  unsigned *channels) {
  *channels = unsigned((d.x != 0) + (d.y != 0) + (d.z != 0) + (d.w != 0));
  int kind;
  std::memcpy(&kind, &d.f, sizeof kind);
  int base = kind == cudaChannelFormatKindSigned ? CU_AD_FORMAT_SIGNED_INT8
                                                 : CU_AD_FORMAT_UNSIGNED_INT8;
  int number = d.x == 16 ? base + 1 : d.x == 32 ? base + 2 : base;
  if (kind == cudaChannelFormatKindFloat)
    number = d.x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
  std::memcpy(format, &number, sizeof number);
}

bool isFloat(const cudaChannelFormatDesc &d) {
  int kind;
  std::memcpy(&kind, &d.f, sizeof kind);
  return kind == cudaChannelFormatKindFloat;
}

// ---- descriptors
// -------------------------------------------------------------

CUresult resourceToRuntime(const CUDA_RESOURCE_DESC &r, cudaResourceDesc *out,
                           cudaChannelFormatDesc *format, const char *call) {
  std::memset(out, 0, sizeof *out);
  if (r.flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  int type;
  std::memcpy(&type, &r.resType, sizeof type);
  switch (type) {
  case CU_RESOURCE_TYPE_ARRAY:
    out->resType = cudaResourceTypeArray;
    out->res.array.array = cudaArray_t(r.res.array.hArray);
    return fromRuntime(
        cudaArrayGetInfo(format, nullptr, nullptr, out->res.array.array));
  case CU_RESOURCE_TYPE_LINEAR:
    out->resType = cudaResourceTypeLinear;
    out->res.linear.devPtr = ptr(r.res.linear.devPtr);
    out->res.linear.sizeInBytes = r.res.linear.sizeInBytes;
    if (CUresult e =
            formatOrRefuse(r.res.linear.format, r.res.linear.numChannels,
                           &out->res.linear.desc, call))
      return e;
    *format = out->res.linear.desc;
    return CUDA_SUCCESS;
  case CU_RESOURCE_TYPE_PITCH2D:
    out->resType = cudaResourceTypePitch2D;
    out->res.pitch2D.devPtr = ptr(r.res.pitch2D.devPtr);
    out->res.pitch2D.width = r.res.pitch2D.width;
    out->res.pitch2D.height = r.res.pitch2D.height;
    out->res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
    if (CUresult e =
            formatOrRefuse(r.res.pitch2D.format, r.res.pitch2D.numChannels,
                           &out->res.pitch2D.desc, call))
      return e;
    *format = out->res.pitch2D.desc;
    return CUDA_SUCCESS;
  case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
    return unsupported("cuTexObjectCreate of a mipmapped array");
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

void resourceToDriver(const cudaResourceDesc &r, CUDA_RESOURCE_DESC *out) {
  std::memset(out, 0, sizeof *out);
  unsigned channels = 0;
  int type;
  std::memcpy(&type, &r.resType, sizeof type);
  switch (type) {
  case cudaResourceTypeLinear:
    out->resType = CU_RESOURCE_TYPE_LINEAR;
    out->res.linear.devPtr = CUdeviceptr(uintptr_t(r.res.linear.devPtr));
    out->res.linear.sizeInBytes = r.res.linear.sizeInBytes;
    driverFormat(r.res.linear.desc, &out->res.linear.format, &channels);
    out->res.linear.numChannels = channels;
    break;
  case cudaResourceTypePitch2D:
    out->resType = CU_RESOURCE_TYPE_PITCH2D;
    out->res.pitch2D.devPtr = CUdeviceptr(uintptr_t(r.res.pitch2D.devPtr));
    out->res.pitch2D.width = r.res.pitch2D.width;
    out->res.pitch2D.height = r.res.pitch2D.height;
    out->res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
    driverFormat(r.res.pitch2D.desc, &out->res.pitch2D.format, &channels);
    out->res.pitch2D.numChannels = channels;
    break;
  default:
    out->resType = CU_RESOURCE_TYPE_ARRAY;
    out->res.array.hArray = CUarray(r.res.array.array);
  }
}

// Without CU_TRSF_READ_AS_INTEGER the driver promotes integer texels to
// normalized floats; float texels are read as they are either way.
cudaTextureDesc textureToRuntime(const CUDA_TEXTURE_DESC &t,
                                 const cudaChannelFormatDesc &format) {
  cudaTextureDesc out;
  std::memset(&out, 0, sizeof out);
  for (int i = 0; i < 3; ++i)
    std::memcpy(&out.addressMode[i], &t.addressMode[i], sizeof(int));
  std::memcpy(&out.filterMode, &t.filterMode, sizeof(int));
  std::memcpy(&out.mipmapFilterMode, &t.mipmapFilterMode, sizeof(int));
  out.readMode = (t.flags & CU_TRSF_READ_AS_INTEGER) || isFloat(format)
                     ? cudaReadModeElementType
                     : cudaReadModeNormalizedFloat;
  out.normalizedCoords = (t.flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
  out.sRGB = (t.flags & CU_TRSF_SRGB) != 0;
  out.disableTrilinearOptimization =
      (t.flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) != 0;
  out.seamlessCubemap = (t.flags & CU_TRSF_SEAMLESS_CUBEMAP) != 0;
  out.maxAnisotropy = t.maxAnisotropy;
  out.mipmapLevelBias = t.mipmapLevelBias;
  out.minMipmapLevelClamp = t.minMipmapLevelClamp;
  out.maxMipmapLevelClamp = t.maxMipmapLevelClamp;
  std::memcpy(out.borderColor, t.borderColor, sizeof out.borderColor);
  return out;
}

CUDA_TEXTURE_DESC textureToDriver(const cudaTextureDesc &t) {
  CUDA_TEXTURE_DESC out;
  std::memset(&out, 0, sizeof out);
  for (int i = 0; i < 3; ++i)
    std::memcpy(&out.addressMode[i], &t.addressMode[i], sizeof(int));
  std::memcpy(&out.filterMode, &t.filterMode, sizeof(int));
  std::memcpy(&out.mipmapFilterMode, &t.mipmapFilterMode, sizeof(int));
  out.flags =
      (t.readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
      (t.normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
      (t.sRGB ? CU_TRSF_SRGB : 0) |
      (t.disableTrilinearOptimization ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION
                                      : 0) |
      (t.seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
  out.maxAnisotropy = t.maxAnisotropy;
  out.mipmapLevelBias = t.mipmapLevelBias;
  out.minMipmapLevelClamp = t.minMipmapLevelClamp;
  out.maxMipmapLevelClamp = t.maxMipmapLevelClamp;
  std::memcpy(out.borderColor, t.borderColor, sizeof out.borderColor);
  return out;
}

CUresult descriptor(CUarray array, CUDA_ARRAY3D_DESCRIPTOR *out) {
  cudaChannelFormatDesc d;
  cudaExtent e;
  unsigned flags = 0;
  if (cudaError_t err = cudaArrayGetInfo(&d, &e, &flags, cudaArray_t(array)))
    return fromRuntime(err);
  out->Width = e.width;
  out->Height = e.height;
  out->Depth = e.depth;
  out->Flags = flags;
  driverFormat(d, &out->Format, &out->NumChannels);
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

// The driver's widest 1D linear texture of the format on `device`, as the
// runtime's twin asks rc-server for it.
CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
                                            CUarray_format format,
                                            unsigned numChannels,
                                            CUdevice device) {
  if (!maxWidthInElements)
    return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc desc;
  if (CUresult e = formatOrRefuse(format, numChannels, &desc,
                                  "cuDeviceGetTexture1DLinearMaxWidth of a "
                                  "normalized-integer, NV12 or "
                                  "block-compressed format"))
    return e;
  return fromRuntime(
      cudaDeviceGetTexture1DLinearMaxWidth(maxWidthInElements, &desc, device));
}

// ---- arrays -----------------------------------------------------------------

CUresult cuArrayCreate_v2(CUarray *array, const CUDA_ARRAY_DESCRIPTOR *d) {
  cudaChannelFormatDesc format;
  if (!array || !d)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = formatOrRefuse(d->Format, d->NumChannels, &format,
                                  "cuArrayCreate with a normalized-integer, "
                                  "NV12 or block-compressed format"))
    return r;
  return fromRuntime(cudaMallocArray(reinterpret_cast<cudaArray_t *>(array),
                                     &format, d->Width, d->Height, 0));
}

// The flags (layered, surface load/store, cubemap, gather...) are the
// runtime's, bit for bit.
CUresult cuArray3DCreate_v2(CUarray *array, const CUDA_ARRAY3D_DESCRIPTOR *d) {
  cudaChannelFormatDesc format;
  if (!array || !d)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = formatOrRefuse(d->Format, d->NumChannels, &format,
                                  "cuArray3DCreate with a normalized-integer, "
                                  "NV12 or block-compressed format"))
    return r;
  return fromRuntime(
      cudaMalloc3DArray(reinterpret_cast<cudaArray_t *>(array), &format,
                        cudaExtent{d->Width, d->Height, d->Depth}, d->Flags));
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray array) {
  CUDA_ARRAY3D_DESCRIPTOR full;
  if (!d)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = descriptor(array, &full))
    return r;
  d->Width = full.Width;
  d->Height = full.Height;
  d->Format = full.Format;
  d->NumChannels = full.NumChannels;
  return CUDA_SUCCESS;
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray array) {
  if (!d)
    return CUDA_ERROR_INVALID_VALUE;
  return descriptor(array, d);
}

// No array is sparse or mapped later here (the runtime refuses making
// one): CUDA answers the others with CUDA_ERROR_INVALID_VALUE.
CUresult cuArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *props,
                                    CUarray array) {
  cudaArraySparseProperties p;
  if (!props)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(cudaArrayGetSparseProperties(&p, cudaArray_t(array)));
}

CUresult
cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *requirements,
                             CUarray array, CUdevice device) {
  cudaArrayMemoryRequirements r;
  if (!requirements)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(
      cudaArrayGetMemoryRequirements(&r, cudaArray_t(array), device));
}

// ---- texture and surface objects
// ------------------------------------------------

CUresult cuTexObjectCreate(CUtexObject *object, const CUDA_RESOURCE_DESC *res,
                           const CUDA_TEXTURE_DESC *tex,
                           const CUDA_RESOURCE_VIEW_DESC *view) {
  cudaResourceDesc r;
  cudaChannelFormatDesc format;
  if (!object || !res || !tex)
    return CUDA_ERROR_INVALID_VALUE;
  if (view)
    return unsupported("cuTexObjectCreate with a resource view");
  if (CUresult e =
          resourceToRuntime(*res, &r, &format,
                            "cuTexObjectCreate with a normalized-"
                            "integer, NV12 or block-compressed format"))
    return e;
  cudaTextureDesc t = textureToRuntime(*tex, format);
  return fromRuntime(cudaCreateTextureObject(object, &r, &t, nullptr));
}

CUresult cuSurfObjectCreate(CUsurfObject *object,
                            const CUDA_RESOURCE_DESC *res) {
  cudaResourceDesc r;
  cudaChannelFormatDesc format;
  if (!object || !res)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = resourceToRuntime(*res, &r, &format,
                                     "cuSurfObjectCreate with a normalized-"
                                     "integer, NV12 or block-compressed "
                                     "format"))
    return e;
  return fromRuntime(cudaCreateSurfaceObject(object, &r));
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *res,
                                    CUtexObject object) {
  cudaResourceDesc r;
  if (!res)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaGetTextureObjectResourceDesc(&r, object))
    return fromRuntime(e);
  resourceToDriver(r, res);
  return CUDA_SUCCESS;
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *tex, CUtexObject object) {
  cudaTextureDesc t;
  if (!tex)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaGetTextureObjectTextureDesc(&t, object))
    return fromRuntime(e);
  *tex = textureToDriver(t);
  return CUDA_SUCCESS;
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *view,
                                        CUtexObject object) {
  cudaResourceViewDesc v;
  if (!view)
    return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(cudaGetTextureObjectResourceViewDesc(&v, object));
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *res,
                                     CUsurfObject object) {
  cudaResourceDesc r;
  if (!res)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaGetSurfaceObjectResourceDesc(&r, object))
    return fromRuntime(e);
  resourceToDriver(r, res);
  return CUDA_SUCCESS;
}

} // extern "C"
