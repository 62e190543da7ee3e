// Surface reads and writes (surf1Dwrite, surf2Dread, ...) for clang 19,
// whose CUDA headers implement texture fetches but not these: CUDA's own
// surface_indirect_functions.h routes them through a builtin clang lacks, so
// cuda-samples' simpleSurfaceWrite stopped at "use of undeclared identifier
// 'surf2Dwrite'". Included by rc-clang-cuda-fixes.h.
//
// The same API as CUDA's (x in bytes, as there; the boundary mode a runtime
// argument), on the PTX instructions nvcc's code uses: sust.b / suld.b,
// unformatted, 1, 2, 4, 8 or 16 bytes a texel. The boundary mode picks the
// instruction's .trap, .clamp or .zero; a value's bits travel in four 32-bit
// registers (or one 16-bit register for 1 and 2 bytes), of which the
// instruction names the ones its width needs.
#ifndef RC_CUDA_SURFACES_H
#define RC_CUDA_SURFACES_H
#pragma clang system_header

#if defined(__CUDA__) && defined(__clang__)

// The instruction's texel width and the registers that hold it.
#define RC_SURF_W1 "b8", "{%[h]}"
#define RC_SURF_W2 "b16", "{%[h]}"
#define RC_SURF_W4 "b32", "{%[v0]}"
#define RC_SURF_W8 "v2.b32", "{%[v0], %[v1]}"
#define RC_SURF_W16 "v4.b32", "{%[v0], %[v1], %[v2], %[v3]}"

#define RC_SUST_ASM(GEOM, COORDS, MODE, WIDTH, VALUE)                          \
  asm volatile("sust.b." GEOM "." WIDTH MODE " [%[s], " COORDS "], " VALUE     \
               ";" ::[s] "l"(surf),                                            \
               [x] "r"(x), [y] "r"(y), [z] "r"(z), [layer] "r"(layer),         \
               [h] "h"(short_bits), [v0] "r"(w[0]), [v1] "r"(w[1]),            \
               [v2] "r"(w[2]), [v3] "r"(w[3])                                  \
               : "memory")
#define RC_SULD_ASM(GEOM, COORDS, MODE, WIDTH, VALUE)                          \
  asm volatile(                                                                \
      "suld.b." GEOM "." WIDTH MODE " " VALUE ", [%[s], " COORDS "];"          \
      : [h] "=h"(short_bits), [v0] "=r"(w[0]), [v1] "=r"(w[1]),                \
        [v2] "=r"(w[2]), [v3] "=r"(w[3])                                       \
      : [s] "l"(surf), [x] "r"(x), [y] "r"(y), [z] "r"(z), [layer] "r"(layer)  \
      : "memory")
#define RC_SURF_MODES(OP, GEOM, COORDS, WIDTH_VALUE)                           \
  switch (mode) {                                                              \
  case cudaBoundaryModeZero:                                                   \
    OP(GEOM, COORDS, ".zero", WIDTH_VALUE);                                    \
    break;                                                                     \
  case cudaBoundaryModeClamp:                                                  \
    OP(GEOM, COORDS, ".clamp", WIDTH_VALUE);                                   \
    break;                                                                     \
  default:                                                                     \
    OP(GEOM, COORDS, ".trap", WIDTH_VALUE);                                    \
  }
#define RC_SURF_WIDTHS(OP, GEOM, COORDS)                                       \
  switch (bytes) {                                                             \
  case 1:                                                                      \
    RC_SURF_MODES(OP, GEOM, COORDS, RC_SURF_W1) break;                         \
  case 2:                                                                      \
    RC_SURF_MODES(OP, GEOM, COORDS, RC_SURF_W2) break;                         \
  case 4:                                                                      \
    RC_SURF_MODES(OP, GEOM, COORDS, RC_SURF_W4) break;                         \
  case 8:                                                                      \
    RC_SURF_MODES(OP, GEOM, COORDS, RC_SURF_W8) break;                         \
  default:                                                                     \
    RC_SURF_MODES(OP, GEOM, COORDS, RC_SURF_W16)                               \
  }

// The instruction's geometry and its coordinate vector (3D and 2D layered
// take four, the last ignored).
#define RC_SURF_GEOMETRIES(OP)                                                 \
  switch (geometry) {                                                          \
  case __rc_surface::D1:                                                       \
    RC_SURF_WIDTHS(OP, "1d", "{%[x]}") break;                                  \
  case __rc_surface::D2:                                                       \
    RC_SURF_WIDTHS(OP, "2d", "{%[x], %[y]}") break;                            \
  case __rc_surface::D3:                                                       \
    RC_SURF_WIDTHS(OP, "3d", "{%[x], %[y], %[z], %[z]}") break;                \
  case __rc_surface::Layered1D:                                                \
    RC_SURF_WIDTHS(OP, "a1d", "{%[layer], %[x]}") break;                       \
  default:                                                                     \
    RC_SURF_WIDTHS(OP, "a2d", "{%[layer], %[x], %[y], %[y]}")                  \
  }

namespace __rc_surface {
enum Geometry { D1, D2, D3, Layered1D, Layered2D };

// geometry, bytes and mode are constants at every call once inlined: the
// switches leave one instruction.
static __device__ __forceinline__ void
store(Geometry geometry, unsigned long long surf, int x, int y, int z,
      int layer, const void *value, int bytes, cudaSurfaceBoundaryMode mode) {
  unsigned int w[4] = {0, 0, 0, 0};
  __builtin_memcpy(w, value, bytes);
  unsigned short short_bits = (unsigned short)w[0];
  RC_SURF_GEOMETRIES(RC_SUST_ASM)
}

static __device__ __forceinline__ void
load(Geometry geometry, unsigned long long surf, int x, int y, int z, int layer,
     void *value, int bytes, cudaSurfaceBoundaryMode mode) {
  unsigned int w[4] = {0, 0, 0, 0};
  unsigned short short_bits = 0;
  RC_SURF_GEOMETRIES(RC_SULD_ASM)
  if (bytes <= 2)
    w[0] = short_bits;
  __builtin_memcpy(value, w, bytes);
}

template <class T> struct texel {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                    sizeof(T) == 8 || sizeof(T) == 16,
                "surface texels are 1, 2, 4, 8 or 16 bytes");
  static constexpr int bytes = sizeof(T);
};
} // namespace __rc_surface

#undef RC_SURF_GEOMETRIES
#undef RC_SURF_WIDTHS
#undef RC_SURF_MODES
#undef RC_SULD_ASM
#undef RC_SUST_ASM
#undef RC_SURF_W1
#undef RC_SURF_W2
#undef RC_SURF_W4
#undef RC_SURF_W8
#undef RC_SURF_W16

// CUDA's three forms per geometry: write a value, read into a pointer, read
// as the result.
#define RC_SURF_API(NAME, GEOMETRY, PARAMS, X, Y, Z, LAYER)                    \
  template <class T>                                                           \
  static __device__ __forceinline__ void NAME##write(                          \
      T value, cudaSurfaceObject_t surf, PARAMS,                               \
      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {                   \
    __rc_surface::store(__rc_surface::GEOMETRY, surf, X, Y, Z, LAYER, &value,  \
                        __rc_surface::texel<T>::bytes, mode);                  \
  }                                                                            \
  template <class T>                                                           \
  static __device__ __forceinline__ void NAME##read(                           \
      T *result, cudaSurfaceObject_t surf, PARAMS,                             \
      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {                   \
    __rc_surface::load(__rc_surface::GEOMETRY, surf, X, Y, Z, LAYER, result,   \
                       __rc_surface::texel<T>::bytes, mode);                   \
  }                                                                            \
  template <class T>                                                           \
  static __device__ __forceinline__ T NAME##read(                              \
      cudaSurfaceObject_t surf, PARAMS,                                        \
      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {                   \
    T result;                                                                  \
    __rc_surface::load(__rc_surface::GEOMETRY, surf, X, Y, Z, LAYER, &result,  \
                       __rc_surface::texel<T>::bytes, mode);                   \
    return result;                                                             \
  }
#define RC_COMMA ,
RC_SURF_API(surf1D, D1, int x, x, 0, 0, 0)
RC_SURF_API(surf2D, D2, int x RC_COMMA int y, x, y, 0, 0)
RC_SURF_API(surf3D, D3, int x RC_COMMA int y RC_COMMA int z, x, y, z, 0)
RC_SURF_API(surf1DLayered, Layered1D, int x RC_COMMA int layer, x, 0, 0, layer)
RC_SURF_API(surf2DLayered, Layered2D, int x RC_COMMA int y RC_COMMA int layer,
            x, y, 0, layer)
#undef RC_COMMA
#undef RC_SURF_API

#endif // __CUDA__ && __clang__
#endif // RC_CUDA_SURFACES_H
