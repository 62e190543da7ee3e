// librc_cuda's copies, memsets and memory queries (docs/driver-api.md): each
// the runtime call it is with the driver's arguments: CUdeviceptr
// addresses, byte offsets into arrays, contexts naming devices. What the
// runtime cannot express (a memset of 16- or 32-bit elements whose bytes
// differ) is built of runtime calls: one element uploaded, then doubled by
// device-to-device copies in stream order.
#include "cu_context.h"
#include "cu_copies.h"
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

extern "C" {
cudaError_t __rc_allocation_range(const void *p, void **base, size_t *size);
int __rc_report_unsupported(const char *call, const char *library);
}

using rc::cu::deviceOf;
using rc::cu::fromRuntime;
using rc::cu::ptr;
using rc::cu::toRuntime3D;

namespace {

CUresult unsupported(const char *what) {
  __rc_report_unsupported(what, "driver library");
  return CUDA_ERROR_NOT_SUPPORTED;
}

// ---- copies ---------------------------------------------------------------

// Where one side of a driver copy is, as the runtime wants it.
struct Side {
  int type = 0;            // CUmemorytype
  void *pointer = nullptr; // host or device (unified) address
  CUarray array = nullptr;
  size_t x = 0, y = 0, z = 0, pitch = 0, height = 0;
};

bool onDevice(int type) {
  return type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY;
}

cudaMemcpyKind kindOf(const Side &src, const Side &dst) {
  if (src.type == CU_MEMORYTYPE_UNIFIED || dst.type == CU_MEMORYTYPE_UNIFIED)
    return cudaMemcpyDefault;
  bool s = onDevice(src.type), d = onDevice(dst.type);
  return s && d ? cudaMemcpyDeviceToDevice
         : s    ? cudaMemcpyDeviceToHost
         : d    ? cudaMemcpyHostToDevice
                : cudaMemcpyHostToHost;
}

// One side of a CUDA_MEMCPY2D or CUDA_MEMCPY3D; the memory type as the
// number it holds (a program may pass any).
Side sideOf(const CUmemorytype &type, const void *host, CUdeviceptr device,
            CUarray array, size_t x, size_t y, size_t pitch) {
  Side s;
  std::memcpy(&s.type, &type, sizeof s.type);
  s.pointer =
      s.type == CU_MEMORYTYPE_HOST ? const_cast<void *>(host) : ptr(device);
  s.array = array;
  s.x = x;
  s.y = y;
  s.pitch = pitch;
  return s;
}

// Bytes of one element of `array`.
CUresult elementBytes(CUarray array, size_t *bytes) {
  cudaChannelFormatDesc d;
  if (cudaError_t e =
          cudaArrayGetInfo(&d, nullptr, nullptr, cudaArray_t(array)))
    return fromRuntime(e);
  *bytes = size_t(d.x + d.y + d.z + d.w) / 8;
  return *bytes ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// A 2D copy between any two of host, device and array memory.
CUresult copy2D(const CUDA_MEMCPY2D *p, CUstream stream, bool async) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  Side s = sideOf(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
                  p->srcXInBytes, p->srcY, p->srcPitch);
  Side d = sideOf(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
                  p->dstXInBytes, p->dstY, p->dstPitch);
  cudaMemcpyKind kind = kindOf(s, d);
  cudaStream_t st = cudaStream_t(stream);
  size_t w = p->WidthInBytes, h = p->Height;
  bool fromArray = s.type == CU_MEMORYTYPE_ARRAY;
  bool toArray = d.type == CU_MEMORYTYPE_ARRAY;
  if (fromArray && toArray) {
    if (async)
      return unsupported("cuMemcpy2DAsync between CUDA arrays");
    return fromRuntime(cudaMemcpy2DArrayToArray(cudaArray_t(d.array), d.x, d.y,
                                                cudaArray_t(s.array), s.x, s.y,
                                                w, h, kind));
  }
  if (toArray) {
    char *src = static_cast<char *>(s.pointer) + s.y * s.pitch + s.x;
    return fromRuntime(
        async ? cudaMemcpy2DToArrayAsync(cudaArray_t(d.array), d.x, d.y, src,
                                         s.pitch, w, h, kind, st)
              : cudaMemcpy2DToArray(cudaArray_t(d.array), d.x, d.y, src,
                                    s.pitch, w, h, kind));
  }
  char *dst = static_cast<char *>(d.pointer) + d.y * d.pitch + d.x;
  if (fromArray)
    return fromRuntime(
        async ? cudaMemcpy2DFromArrayAsync(dst, d.pitch, cudaArray_t(s.array),
                                           s.x, s.y, w, h, kind, st)
              : cudaMemcpy2DFromArray(dst, d.pitch, cudaArray_t(s.array), s.x,
                                      s.y, w, h, kind));
  char *src = static_cast<char *>(s.pointer) + s.y * s.pitch + s.x;
  return fromRuntime(
      async ? cudaMemcpy2DAsync(dst, d.pitch, src, s.pitch, w, h, kind, st)
            : cudaMemcpy2D(dst, d.pitch, src, s.pitch, w, h, kind));
}

} // namespace

// A CUDA_MEMCPY3D as cudaMemcpy3DParms: positions and the width count
// bytes in the driver, elements on an array side in the runtime.
CUresult rc::cu::toRuntime3D(const CUDA_MEMCPY3D &p, cudaMemcpy3DParms *q) {
  if (p.srcLOD || p.dstLOD)
    return CUDA_ERROR_INVALID_VALUE; // mipmap levels: no mipmapped arrays
  Side s = sideOf(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray,
                  p.srcXInBytes, p.srcY, p.srcPitch);
  Side d = sideOf(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray,
                  p.dstXInBytes, p.dstY, p.dstPitch);
  std::memset(q, 0, sizeof *q);
  size_t element = 1;
  if (s.type == CU_MEMORYTYPE_ARRAY || d.type == CU_MEMORYTYPE_ARRAY)
    if (CUresult r = elementBytes(
            s.type == CU_MEMORYTYPE_ARRAY ? s.array : d.array, &element))
      return r;
  if (p.WidthInBytes % element || p.srcXInBytes % element ||
      p.dstXInBytes % element)
    return CUDA_ERROR_INVALID_VALUE;
  auto fill = [&](const Side &side, size_t z, size_t height, cudaArray_t *a,
                  cudaPos *pos, cudaPitchedPtr *pp) {
    if (side.type == CU_MEMORYTYPE_ARRAY) {
      *a = cudaArray_t(side.array);
      *pos = cudaPos{side.x / element, side.y, z};
    } else {
      *pos = cudaPos{side.x, side.y, z};
      *pp = cudaPitchedPtr{side.pointer, side.pitch, p.WidthInBytes, height};
    }
  };
  fill(s, p.srcZ, p.srcHeight, &q->srcArray, &q->srcPos, &q->srcPtr);
  fill(d, p.dstZ, p.dstHeight, &q->dstArray, &q->dstPos, &q->dstPtr);
  bool anyArray = q->srcArray || q->dstArray;
  q->extent = cudaExtent{anyArray ? p.WidthInBytes / element : p.WidthInBytes,
                         p.Height, p.Depth};
  q->kind = kindOf(s, d);
  return CUDA_SUCCESS;
}

namespace {

CUresult copy3D(const CUDA_MEMCPY3D *p, CUstream stream, bool async) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpy3DParms q;
  if (CUresult r = toRuntime3D(*p, &q))
    return r;
  return fromRuntime(async ? cudaMemcpy3DAsync(&q, cudaStream_t(stream))
                           : cudaMemcpy3D(&q));
}

// The same copy, its contexts checked (peer copies are device to device
// here: runtime_copy2d.cpp).
CUresult copy3DPeer(const CUDA_MEMCPY3D_PEER *p, CUstream stream, bool async) {
  int device = 0;
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = deviceOf(p->srcContext, &device))
    return r;
  if (CUresult r = deviceOf(p->dstContext, &device))
    return r;
  CUDA_MEMCPY3D q;
  std::memset(&q, 0, sizeof q);
  q.srcXInBytes = p->srcXInBytes, q.srcY = p->srcY, q.srcZ = p->srcZ;
  q.srcLOD = p->srcLOD, q.srcMemoryType = p->srcMemoryType;
  q.srcHost = p->srcHost, q.srcDevice = p->srcDevice;
  q.srcArray = p->srcArray, q.srcPitch = p->srcPitch;
  q.srcHeight = p->srcHeight;
  q.dstXInBytes = p->dstXInBytes, q.dstY = p->dstY, q.dstZ = p->dstZ;
  q.dstLOD = p->dstLOD, q.dstMemoryType = p->dstMemoryType;
  q.dstHost = p->dstHost, q.dstDevice = p->dstDevice;
  q.dstArray = p->dstArray, q.dstPitch = p->dstPitch;
  q.dstHeight = p->dstHeight;
  q.WidthInBytes = p->WidthInBytes, q.Height = p->Height, q.Depth = p->Depth;
  return copy3D(&q, stream, async);
}

// A byte offset into an array as the runtime's (x bytes, row).
CUresult arrayOffset(CUarray array, size_t offset, size_t *x, size_t *y) {
  cudaChannelFormatDesc d;
  cudaExtent e;
  if (cudaError_t err = cudaArrayGetInfo(&d, &e, nullptr, cudaArray_t(array)))
    return fromRuntime(err);
  size_t row = e.width * size_t(d.x + d.y + d.z + d.w) / 8;
  if (!row)
    return CUDA_ERROR_INVALID_VALUE;
  *x = offset % row;
  *y = offset / row;
  return CUDA_SUCCESS;
}

CUresult toArray(CUarray dst, size_t offset, const void *src, size_t n,
                 cudaMemcpyKind kind, CUstream stream, bool async) {
  size_t x, y;
  if (CUresult r = arrayOffset(dst, offset, &x, &y))
    return r;
  return fromRuntime(
      async ? cudaMemcpyToArrayAsync(cudaArray_t(dst), x, y, src, n, kind,
                                     cudaStream_t(stream))
            : cudaMemcpyToArray(cudaArray_t(dst), x, y, src, n, kind));
}

CUresult fromArray(void *dst, CUarray src, size_t offset, size_t n,
                   cudaMemcpyKind kind, CUstream stream, bool async) {
  size_t x, y;
  if (CUresult r = arrayOffset(src, offset, &x, &y))
    return r;
  return fromRuntime(
      async ? cudaMemcpyFromArrayAsync(dst, cudaArray_t(src), x, y, n, kind,
                                       cudaStream_t(stream))
            : cudaMemcpyFromArray(dst, cudaArray_t(src), x, y, n, kind));
}

CUresult peer(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src,
              CUcontext srcCtx, size_t n, CUstream stream, bool async) {
  int dstDevice = 0, srcDevice = 0;
  if (CUresult r = deviceOf(dstCtx, &dstDevice))
    return r;
  if (CUresult r = deviceOf(srcCtx, &srcDevice))
    return r;
  return fromRuntime(
      async ? cudaMemcpyPeerAsync(ptr(dst), dstDevice, ptr(src), srcDevice, n,
                                  cudaStream_t(stream))
            : cudaMemcpyPeer(ptr(dst), dstDevice, ptr(src), srcDevice, n));
}

// ---- memsets of 8-, 16- and 32-bit elements -----------------------------

// `count` elements of `size` bytes from `value` at dst, in stream order.
CUresult fill(CUdeviceptr dst, uint32_t value, unsigned size, size_t count,
              CUstream stream) {
  cudaStream_t st = cudaStream_t(stream);
  uint8_t element[4];
  std::memcpy(element, &value, size); // little-endian: the low bytes
  bool sameBytes = std::all_of(element, element + size,
                               [&](uint8_t b) { return b == element[0]; });
  if (sameBytes || count == 0)
    return fromRuntime(cudaMemsetAsync(ptr(dst), element[0], count * size, st));
  // One element, then what is there copied after itself until all are.
  if (cudaError_t e =
          cudaMemcpyAsync(ptr(dst), element, size, cudaMemcpyHostToDevice, st))
    return fromRuntime(e);
  for (size_t done = 1; done < count;) {
    size_t n = std::min(done, count - done);
    if (cudaError_t e = cudaMemcpyAsync(ptr(dst + done * size), ptr(dst),
                                        n * size, cudaMemcpyDeviceToDevice, st))
      return fromRuntime(e);
    done += n;
  }
  return CUDA_SUCCESS;
}

// Rows of `width` elements, `pitch` bytes apart: the first row filled,
// then the rows done so far copied below themselves until all are.
CUresult fill2D(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned size,
                size_t width, size_t height, CUstream stream) {
  cudaStream_t st = cudaStream_t(stream);
  size_t rowBytes = width * size;
  if (height == 0 || width == 0)
    return CUDA_SUCCESS;
  if (pitch < rowBytes)
    return CUDA_ERROR_INVALID_VALUE;
  uint8_t element[4];
  std::memcpy(element, &value, size);
  if (std::all_of(element, element + size,
                  [&](uint8_t b) { return b == element[0]; }))
    return fromRuntime(
        cudaMemset2DAsync(ptr(dst), pitch, element[0], rowBytes, height, st));
  if (CUresult r = fill(dst, value, size, width, stream))
    return r;
  for (size_t done = 1; done < height;) {
    size_t n = std::min(done, height - done);
    if (cudaError_t e =
            cudaMemcpy2DAsync(ptr(dst + done * pitch), pitch, ptr(dst), pitch,
                              rowBytes, n, cudaMemcpyDeviceToDevice, st))
      return fromRuntime(e);
    done += n;
  }
  return CUDA_SUCCESS;
}

// ---- pointer attributes ----------------------------------------------------

template <class T> CUresult put(void *data, T value) {
  std::memcpy(data, &value, sizeof value);
  return CUDA_SUCCESS;
}

CUresult pointerAttribute(void *data, int attribute, CUdeviceptr p) {
  if (!data)
    return CUDA_ERROR_INVALID_VALUE;
  cudaPointerAttributes a;
  if (cudaError_t e = cudaPointerGetAttributes(&a, ptr(p)))
    return fromRuntime(e);
  if (a.type == cudaMemoryTypeUnregistered)
    return CUDA_ERROR_INVALID_VALUE; // not memory CUDA knows
  bool device = a.type != cudaMemoryTypeHost;
  void *base = nullptr;
  size_t size = 0;
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_CONTEXT:
    return put(data, rc::cu::contextOf(a.device));
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    return put(data, int(device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST));
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    if (!a.devicePointer)
      return CUDA_ERROR_INVALID_VALUE; // host memory the GPU cannot map
    return put(data, CUdeviceptr(uintptr_t(a.devicePointer)));
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    if (!a.hostPointer)
      return CUDA_ERROR_INVALID_VALUE;
    return put(data, a.hostPointer);
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    return put(data, int(a.type == cudaMemoryTypeManaged));
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    return put(data, int(a.device));
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
  case CU_POINTER_ATTRIBUTE_MAPPED:
    return put(data, int(1));
  case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
  case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    return put(data, int(0)); // neither IPC nor RDMA reaches it from here
  case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
    return put(data, uint64_t(CU_MEM_HANDLE_TYPE_NONE));
  case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
    return put(data, int(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE));
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
  case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
  case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
  case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
    if (cudaError_t e = __rc_allocation_range(ptr(p), &base, &size))
      return fromRuntime(e);
    if (attribute == CU_POINTER_ATTRIBUTE_RANGE_SIZE ||
        attribute == CU_POINTER_ATTRIBUTE_MAPPING_SIZE)
      return put(data, size_t(size));
    if (attribute == CU_POINTER_ATTRIBUTE_BUFFER_ID ||
        attribute == CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID)
      return put(data, uint64_t(uintptr_t(base))); // unique while it lives
    return put(data, CUdeviceptr(uintptr_t(base)));
  case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
    return put(data, static_cast<CUmemoryPool>(nullptr));
  default:
    return unsupported("cuPointerGetAttribute (P2P tokens)");
  }
}

} // namespace

extern "C" {

// ---- copies ---------------------------------------------------------------

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return fromRuntime(cudaMemcpy(ptr(dst), ptr(src), n, cudaMemcpyDefault));
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return fromRuntime(cudaMemcpyAsync(ptr(dst), ptr(src), n, cudaMemcpyDefault,
                                     cudaStream_t(s)));
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n,
                              CUstream s) {
  return fromRuntime(cudaMemcpyAsync(
      ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, cudaStream_t(s)));
}
CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src,
                      CUcontext srcCtx, size_t n) {
  return peer(dst, dstCtx, src, srcCtx, n, nullptr, false);
}
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src,
                           CUcontext srcCtx, size_t n, CUstream s) {
  return peer(dst, dstCtx, src, srcCtx, n, s, true);
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) {
  return copy2D(p, nullptr, false);
}
// Unaligned pitches are no concern of the runtime's copies.
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) {
  return copy2D(p, nullptr, false);
}
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream s) {
  return copy2D(p, s, true);
}
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) {
  return copy3D(p, nullptr, false);
}
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream s) {
  return copy3D(p, s, true);
}
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p) {
  return copy3DPeer(p, nullptr, false);
}
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream s) {
  return copy3DPeer(p, s, true);
}

CUresult cuMemcpyHtoA_v2(CUarray dst, size_t offset, const void *src,
                         size_t n) {
  return toArray(dst, offset, src, n, cudaMemcpyHostToDevice, nullptr, false);
}
CUresult cuMemcpyHtoAAsync_v2(CUarray dst, size_t offset, const void *src,
                              size_t n, CUstream s) {
  return toArray(dst, offset, src, n, cudaMemcpyHostToDevice, s, true);
}
CUresult cuMemcpyDtoA_v2(CUarray dst, size_t offset, CUdeviceptr src,
                         size_t n) {
  return toArray(dst, offset, ptr(src), n, cudaMemcpyDeviceToDevice, nullptr,
                 false);
}
CUresult cuMemcpyAtoH_v2(void *dst, CUarray src, size_t offset, size_t n) {
  return fromArray(dst, src, offset, n, cudaMemcpyDeviceToHost, nullptr, false);
}
CUresult cuMemcpyAtoHAsync_v2(void *dst, CUarray src, size_t offset, size_t n,
                              CUstream s) {
  return fromArray(dst, src, offset, n, cudaMemcpyDeviceToHost, s, true);
}
CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t offset,
                         size_t n) {
  return fromArray(ptr(dst), src, offset, n, cudaMemcpyDeviceToDevice, nullptr,
                   false);
}
CUresult cuMemcpyAtoA_v2(CUarray dst, size_t dstOffset, CUarray src,
                         size_t srcOffset, size_t n) {
  size_t dx, dy, sx, sy;
  if (CUresult r = arrayOffset(dst, dstOffset, &dx, &dy))
    return r;
  if (CUresult r = arrayOffset(src, srcOffset, &sx, &sy))
    return r;
  return fromRuntime(cudaMemcpyArrayToArray(cudaArray_t(dst), dx, dy,
                                            cudaArray_t(src), sx, sy, n,
                                            cudaMemcpyDeviceToDevice));
}

// ---- memsets ----------------------------------------------------------------

CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short value, size_t n) {
  return fill(dst, value, 2, n, nullptr);
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t n,
                          CUstream s) {
  return fill(dst, value, 2, n, s);
}
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t n) {
  return fill(dst, value, 4, n, nullptr);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n,
                          CUstream s) {
  return fill(dst, value, 4, n, s);
}
CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char value,
                         size_t width, size_t height) {
  return fill2D(dst, pitch, value, 1, width, height, nullptr);
}
CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char value,
                           size_t width, size_t height, CUstream s) {
  return fill2D(dst, pitch, value, 1, width, height, s);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short value,
                          size_t width, size_t height) {
  return fill2D(dst, pitch, value, 2, width, height, nullptr);
}
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short value,
                            size_t width, size_t height, CUstream s) {
  return fill2D(dst, pitch, value, 2, width, height, s);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int value,
                          size_t width, size_t height) {
  return fill2D(dst, pitch, value, 4, width, height, nullptr);
}
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int value,
                            size_t width, size_t height, CUstream s) {
  return fill2D(dst, pitch, value, 4, width, height, s);
}

// ---- allocations and what a pointer is -----------------------------------

// The element size only tunes the pitch the driver picks; the runtime's
// (a multiple of 512 bytes) suits every size the driver takes.
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch,
                            size_t widthInBytes, size_t height,
                            unsigned int elementSizeBytes) {
  if (!dptr || !pitch ||
      (elementSizeBytes != 4 && elementSizeBytes != 8 &&
       elementSizeBytes != 16))
    return CUDA_ERROR_INVALID_VALUE;
  void *p = nullptr;
  cudaError_t e = cudaMallocPitch(&p, pitch, widthInBytes, height);
  *dptr = CUdeviceptr(uintptr_t(p));
  return fromRuntime(e);
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size,
                                 CUdeviceptr dptr) {
  void *start = nullptr;
  size_t bytes = 0;
  if (__rc_allocation_range(ptr(dptr), &start, &bytes) != cudaSuccess)
    return CUDA_ERROR_NOT_FOUND;
  if (base)
    *base = CUdeviceptr(uintptr_t(start));
  if (size)
    *size = bytes;
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                               CUdeviceptr p) {
  int number;
  std::memcpy(&number, &attribute, sizeof number);
  return pointerAttribute(data, number, p);
}

// Attributes that do not apply to the pointer are left as they are, as
// the driver does; anything else failing fails the call.
CUresult cuPointerGetAttributes(unsigned int count,
                                CUpointer_attribute *attributes, void **data,
                                CUdeviceptr p) {
  if (!attributes || !data)
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < count; ++i) {
    int number;
    std::memcpy(&number, &attributes[i], sizeof number);
    CUresult r = pointerAttribute(data[i], number, p);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE)
      return r;
  }
  return CUDA_SUCCESS;
}

// Synchronous memory operations are synchronous here already; nothing
// else may be set.
CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute,
                               CUdeviceptr p) {
  int number;
  std::memcpy(&number, &attribute, sizeof number);
  cudaPointerAttributes a;
  if (!value || number != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
    return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaPointerGetAttributes(&a, ptr(p)))
    return fromRuntime(e);
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_VALUE;
}

} // extern "C"
