// cuBLAS on the host test device: a plain CPU reference (loops, double
// accumulation) so CI checks the numbers of every remoted call shape without
// a GPU. Types: F32, F16, BF16 and F64 operands with the compute types cuBLAS
// allows for them; anything else fails naming the combination.
#include "backend/cublas_context.h"
#include "backend/host/lu_host.h"
#include "libraries/library_catalog.h"
#include "rc/server/errors.h"

#include <cublas_api.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

namespace rc::server {

namespace {

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f,
           man = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = std::ldexp(float(man), -24); // subnormal (or zero)
  } else if (exp == 31) {
    f = man ? NAN : INFINITY;
  } else {
    uint32_t bits = ((exp + 112) << 23) | (man << 13);
    std::memcpy(&f, &bits, 4);
  }
  return sign ? -f : f;
}

uint16_t floatToHalf(float f) {
  // Round to nearest even, through the value's binary representation.
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  float a = std::fabs(f);
  if (std::isnan(f))
    return sign | 0x7e00;
  if (a >= 65520.0f)
    return sign | 0x7c00;
  if (a < 6.103515625e-05f) // subnormal: multiples of 2^-24
    return sign | uint16_t(std::nearbyint(a * 16777216.0f));
  uint32_t bits;
  std::memcpy(&bits, &a, 4);
  uint32_t exp = (bits >> 23) - 112, man = bits & 0x7fffff;
  uint32_t h = (exp << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent, which is still correct
  return sign | uint16_t(h);
}

float bf16ToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f))
    return uint16_t((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

double load(const uint8_t *p, int type) {
  switch (type) {
  case CUDA_R_32F: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case CUDA_R_64F: {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  case CUDA_R_16F: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
  }
  case CUDA_R_16BF: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16ToFloat(h);
  }
  default:
    return 0;
  }
}

void store(uint8_t *p, int type, double v) {
  switch (type) {
  case CUDA_R_32F: {
    float f = float(v);
    std::memcpy(p, &f, 4);
    break;
  }
  case CUDA_R_64F:
    std::memcpy(p, &v, 8);
    break;
  case CUDA_R_16F: {
    uint16_t h = floatToHalf(float(v));
    std::memcpy(p, &h, 2);
    break;
  }
  case CUDA_R_16BF: {
    uint16_t h = floatToBf16(float(v));
    std::memcpy(p, &h, 2);
    break;
  }
  default:
    break;
  }
}

// The cublasGemmEx type table (cuBLAS docs), restricted to real types.
bool supportedCombo(int compute, int ta, int tb, int tc, int *scaleType) {
  if (ta != tb)
    return false;
  switch (compute) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC:
    *scaleType = CUDA_R_16F;
    return ta == CUDA_R_16F && tc == CUDA_R_16F;
  case CUBLAS_COMPUTE_32F:
  case CUBLAS_COMPUTE_32F_PEDANTIC:
    *scaleType = CUDA_R_32F;
    return (ta == CUDA_R_32F && tc == CUDA_R_32F) ||
           ((ta == CUDA_R_16F || ta == CUDA_R_16BF) &&
            (tc == ta || tc == CUDA_R_32F));
  case CUBLAS_COMPUTE_32F_FAST_16F:
  case CUBLAS_COMPUTE_32F_FAST_16BF:
  case CUBLAS_COMPUTE_32F_FAST_TF32:
    *scaleType = CUDA_R_32F;
    return ta == CUDA_R_32F && tc == CUDA_R_32F;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC:
    *scaleType = CUDA_R_64F;
    return ta == CUDA_R_64F && tc == CUDA_R_64F;
  default:
    return false;
  }
}

class HostBlas : public BlasContext {
public:
  explicit HostBlas(HostResolver r) : resolve_(std::move(r)) {}

  OpStatus create(uint64_t handle) override {
    handles_[handle] = true;
    return OpStatus::success();
  }
  OpStatus destroy(uint64_t handle) override {
    handles_.erase(handle);
    return OpStatus::success();
  }
  // Rows (docs/libraries.md): the handle's entry stands for the library's
  // handle, and of the library only cublasSetStream_v2 exists here, doing
  // nothing, as this reference's GEMMs run at once whatever the stream.
  void *nativeHandle(uint64_t handle) override {
    auto it = handles_.find(handle);
    return it == handles_.end() ? nullptr : &it->second;
  }
  void *librarySymbol(const char *name) override {
    return std::string(name) == "cublasSetStream_v2"
               ? lib::cublasSetStreamIgnored()
               : nullptr;
  }
  // Nothing runs on a device here, so the workspace is only validated.
  OpStatus setWorkspace(uint64_t, uint64_t, uint64_t) override {
    return OpStatus::success();
  }

  OpStatus gemm(uint64_t, const BlasGemm &g) override {
    int scaleType = 0;
    if (!supportedCombo(g.computeType, g.a.type, g.b.type, g.c.type,
                        &scaleType))
      return OpStatus::fail(
          kErrNotSupported,
          "the host test device does not implement A/B/C types " +
              blasTypeName(g.a.type) + "/" + blasTypeName(g.b.type) + "/" +
              blasTypeName(g.c.type) + " with compute type " +
              std::to_string(g.computeType));
    // Device scalars (CUBLAS_POINTER_MODE_DEVICE) are read where they are:
    // this device runs in order, so they hold what earlier work wrote.
    const uint8_t *pa = g.alpha, *pb = g.beta;
    if (g.scalarsOnDevice) {
      size_t bytes = blasScalarSize(g.computeType);
      pa = resolve_(g.alphaAddress, bytes);
      pb = resolve_(g.betaAddress, bytes);
      if (!pa || !pb)
        return OpStatus::fail(kErrInvalidValue,
                              "alpha or beta is not inside one allocation");
    }
    double alpha = load(pa, scaleType), beta = load(pb, scaleType);
    size_t ea = blasTypeSize(g.a.type), eb = blasTypeSize(g.b.type),
           ec = blasTypeSize(g.c.type);
    for (int i = 0; i < g.batchCount; ++i) {
      uint64_t a, b, c;
      if (isPointerArrayApi(g.api)) {
        a = g.aPtrs[i], b = g.bPtrs[i], c = g.cPtrs[i];
      } else {
        // Unsigned, so a stride a client made huge wraps (the bounds check
        // then refuses the address) instead of overflowing.
        a = g.a.ptr + uint64_t(i) * uint64_t(g.a.stride) * ea;
        b = g.b.ptr + uint64_t(i) * uint64_t(g.b.stride) * eb;
        c = g.c.ptr + uint64_t(i) * uint64_t(g.c.stride) * ec;
      }
      OpStatus st = one(g, alpha, beta, a, b, c);
      if (!st.ok())
        return st;
    }
    return OpStatus::success();
  }

  OpStatus trsmBatched(uint64_t, const BlasTrsm &t) override {
    int order = t.side == kSideLeft ? t.m : t.n;
    for (int i = 0; i < t.batchCount && t.m && t.n; ++i) {
      const uint8_t *ap = span(t.aPtrs[i], order, order, t.lda, 4);
      uint8_t *bp = span(t.bPtrs[i], t.m, t.n, t.ldb, 4);
      if (!ap || !bp)
        return outside();
      solve(t, order, reinterpret_cast<const float *>(ap),
            reinterpret_cast<float *>(bp));
    }
    return OpStatus::success();
  }

  OpStatus luBatched(uint64_t, const BlasLu &lu) override {
    switch (lu.type) {
    case kLuR32F:
      return lu1<float>(lu);
    case kLuR64F:
      return lu1<double>(lu);
    case kLuC32F:
      return lu1<std::complex<float>>(lu);
    default:
      return lu1<std::complex<double>>(lu);
    }
  }

private:
  template <class T> OpStatus lu1(const BlasLu &lu) {
    auto *info =
        reinterpret_cast<int *>(resolve_(lu.info, uint64_t(lu.batchCount) * 4));
    int *pivots =
        lu.pivots
            ? reinterpret_cast<int *>(resolve_(
                  lu.pivots, uint64_t(lu.batchCount) * uint64_t(lu.n) * 4))
            : nullptr;
    if (!info || (lu.pivots && !pivots))
      return outside();
    for (int i = 0; i < lu.batchCount; ++i) {
      int *p = pivots ? pivots + int64_t(i) * lu.n : nullptr;
      if (lu.n == 0) {
        info[i] = 0;
        continue;
      }
      auto *a = reinterpret_cast<T *>(
          span(lu.aPtrs[size_t(i)], lu.n, lu.n, lu.lda, sizeof(T)));
      if (!a)
        return outside();
      if (!lu.inverse) {
        info[i] = luFactor(a, lu.lda, lu.n, p);
        continue;
      }
      auto *c = reinterpret_cast<T *>(
          span(lu.cPtrs[size_t(i)], lu.n, lu.n, lu.ldc, sizeof(T)));
      if (!c)
        return outside();
      info[i] = luInvert(a, lu.lda, lu.n, p, c, lu.ldc);
    }
    return OpStatus::success();
  }

  uint8_t *span(uint64_t p, int64_t rows, int64_t cols, int64_t ld, size_t es) {
    if (rows <= 0 || cols <= 0)
      return nullptr;
    return resolve_(p, uint64_t((cols - 1) * ld + rows) * es);
  }
  static OpStatus outside() {
    return OpStatus::fail(kErrInvalidValue,
                          "matrix outside the session's allocations");
  }

  // C = alpha * op(A) * op(B) + beta * C for one matrix triple.
  OpStatus one(const BlasGemm &g, double alpha, double beta, uint64_t a,
               uint64_t b, uint64_t c) {
    if (!g.m || !g.n)
      return OpStatus::success();
    size_t ea = blasTypeSize(g.a.type), eb = blasTypeSize(g.b.type),
           ec = blasTypeSize(g.c.type);
    uint8_t *cp = span(c, g.m, g.n, g.c.ld, ec);
    const uint8_t *ap = g.k ? span(a, g.transA == kOpN ? g.m : g.k,
                                   g.transA == kOpN ? g.k : g.m, g.a.ld, ea)
                            : nullptr;
    const uint8_t *bp = g.k ? span(b, g.transB == kOpN ? g.k : g.n,
                                   g.transB == kOpN ? g.n : g.k, g.b.ld, eb)
                            : nullptr;
    if (!cp || (g.k && (!ap || !bp)))
      return outside();
    for (int j = 0; j < g.n; ++j)
      for (int i = 0; i < g.m; ++i) {
        double sum = 0;
        for (int l = 0; l < g.k; ++l) {
          int64_t ai = g.transA == kOpN ? i + l * g.a.ld : l + i * g.a.ld;
          int64_t bi = g.transB == kOpN ? l + j * g.b.ld : j + l * g.b.ld;
          sum += load(ap + ai * ea, g.a.type) * load(bp + bi * eb, g.b.type);
        }
        uint8_t *cij = cp + (i + int64_t(j) * g.c.ld) * ec;
        // beta == 0 must not read C (it may hold NaNs), as in BLAS.
        double v = alpha * sum + (beta != 0 ? beta * load(cij, g.c.type) : 0);
        store(cij, g.c.type, v);
      }
    return OpStatus::success();
  }

  // op(A) X = alpha B (left) or X op(A) = alpha B (right); X overwrites B.
  static void solve(const BlasTrsm &t, int order, const float *a, float *b) {
    // T = op(A) as a dense order x order matrix with the unused triangle 0.
    std::vector<double> T(size_t(order) * order, 0.0);
    for (int r = 0; r < order; ++r)
      for (int c = 0; c < order; ++c) {
        bool stored = t.uplo == kFillUpper ? r <= c : r >= c;
        if (stored)
          T[size_t(r) * order + c] = a[r + int64_t(c) * t.lda];
      }
    if (t.trans != kOpN)
      for (int r = 0; r < order; ++r)
        for (int c = r + 1; c < order; ++c)
          std::swap(T[size_t(r) * order + c], T[size_t(c) * order + r]);
    if (t.diag == kDiagUnit)
      for (int d = 0; d < order; ++d)
        T[size_t(d) * order + d] = 1.0;
    bool upper = (t.uplo == kFillUpper) != (t.trans != kOpN);
    auto Tat = [&](int r, int c) { return T[size_t(r) * order + c]; };
    auto B = [&](int r, int c) -> float & { return b[r + int64_t(c) * t.ldb]; };
    if (t.side == kSideLeft) {
      for (int col = 0; col < t.n; ++col) {
        std::vector<double> x(t.m);
        for (int s = 0; s < t.m; ++s) {
          int i = upper ? t.m - 1 - s : s;
          double v = t.alpha * double(B(i, col));
          for (int l = 0; l < t.m; ++l)
            if (upper ? l > i : l < i)
              v -= Tat(i, l) * x[l];
          x[i] = v / Tat(i, i);
        }
        for (int i = 0; i < t.m; ++i)
          B(i, col) = float(x[i]);
      }
    } else {
      for (int row = 0; row < t.m; ++row) {
        std::vector<double> x(t.n);
        for (int s = 0; s < t.n; ++s) {
          int j = upper ? s : t.n - 1 - s;
          double v = t.alpha * double(B(row, j));
          for (int l = 0; l < t.n; ++l)
            if (upper ? l < j : l > j)
              v -= x[l] * Tat(l, j);
          x[j] = v / Tat(j, j);
        }
        for (int j = 0; j < t.n; ++j)
          B(row, j) = float(x[j]);
      }
    }
  }

  HostResolver resolve_;
  std::map<uint64_t, bool> handles_;
};

} // namespace

std::unique_ptr<BlasContext> makeHostBlas(HostResolver resolve) {
  return std::make_unique<HostBlas>(std::move(resolve));
}

} // namespace rc::server
