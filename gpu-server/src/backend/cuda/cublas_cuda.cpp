// cuBLAS on the real GPU: libcublas is dlopen'd (libcublas.so.13, else .12;
// RC_CUBLAS_LIBRARY overrides) so rc-server builds and starts without it.
// Each client handle is one real cublasHandle_t created in the session's
// context (current on the session thread); stream and math mode travel with
// every call and are set on the handle only when they change. The pointer
// arrays of the *Batched calls are re-uploaded from the executor's validated
// copy into a server-owned device buffer, so what cuBLAS dereferences is
// exactly what was checked.
#include "backend/cublas_context.h"
#include "rc/server/errors.h"

#include <cublas_api.h>
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>

namespace rc::server {

namespace {

// X(name, parameter list): the 13.0 signatures, equal to 12.x's.
#define RC_CUBLAS_ENTRY_POINTS(X)                                              \
  X(cublasCreate_v2, (cublasHandle_t *))                                       \
  X(cublasDestroy_v2, (cublasHandle_t))                                        \
  X(cublasSetStream_v2, (cublasHandle_t, cudaStream_t))                        \
  X(cublasSetMathMode, (cublasHandle_t, cublasMath_t))                         \
  X(cublasSetPointerMode_v2, (cublasHandle_t, cublasPointerMode_t))            \
  X(cublasSetWorkspace_v2, (cublasHandle_t, void *, size_t))                   \
  X(cublasSgemm_v2, (cublasHandle_t, cublasOperation_t, cublasOperation_t,     \
                     int, int, int, const float *, const float *, int,         \
                     const float *, int, const float *, float *, int))         \
  X(cublasSgemmStridedBatched,                                                 \
    (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,      \
     const float *, const float *, int, long long, const float *, int,         \
     long long, const float *, float *, int, long long, int))                  \
  X(cublasSgemmBatched,                                                        \
    (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,      \
     const float *, const float *const[], int, const float *const[], int,      \
     const float *, float *const[], int, int))                                 \
  X(cublasGemmEx, (cublasHandle_t, cublasOperation_t, cublasOperation_t, int,  \
                   int, int, const void *, const void *, cudaDataType, int,    \
                   const void *, cudaDataType, int, const void *, void *,      \
                   cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t))  \
  X(cublasGemmStridedBatchedEx,                                                \
    (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,      \
     const void *, const void *, cudaDataType, int, long long, const void *,   \
     cudaDataType, int, long long, const void *, void *, cudaDataType, int,    \
     long long, int, cublasComputeType_t, cublasGemmAlgo_t))                   \
  X(cublasGemmBatchedEx,                                                       \
    (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,      \
     const void *, const void *const[], cudaDataType, int,                     \
     const void *const[], cudaDataType, int, const void *, void *const[],      \
     cudaDataType, int, int, cublasComputeType_t, cublasGemmAlgo_t))           \
  X(cublasStrsmBatched,                                                        \
    (cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,    \
     cublasDiagType_t, int, int, const float *, const float *const[], int,     \
     float *const[], int, int))                                                \
  X(cublasSgetrfBatched,                                                       \
    (cublasHandle_t, int, float *const[], int, int *, int *, int))             \
  X(cublasDgetrfBatched,                                                       \
    (cublasHandle_t, int, double *const[], int, int *, int *, int))            \
  X(cublasCgetrfBatched,                                                       \
    (cublasHandle_t, int, cuComplex *const[], int, int *, int *, int))         \
  X(cublasZgetrfBatched,                                                       \
    (cublasHandle_t, int, cuDoubleComplex *const[], int, int *, int *, int))   \
  X(cublasSgetriBatched, (cublasHandle_t, int, const float *const[], int,      \
                          const int *, float *const[], int, int *, int))       \
  X(cublasDgetriBatched, (cublasHandle_t, int, const double *const[], int,     \
                          const int *, double *const[], int, int *, int))      \
  X(cublasCgetriBatched, (cublasHandle_t, int, const cuComplex *const[], int,  \
                          const int *, cuComplex *const[], int, int *, int))   \
  X(cublasZgetriBatched,                                                       \
    (cublasHandle_t, int, const cuDoubleComplex *const[], int, const int *,    \
     cuDoubleComplex *const[], int, int *, int))

struct CublasLibrary {
#define RC_DECLARE(name, params) cublasStatus_t(*name) params = nullptr;
  RC_CUBLAS_ENTRY_POINTS(RC_DECLARE)
#undef RC_DECLARE
  const char *(*cublasGetStatusString)(cublasStatus_t) = nullptr;
  void *library = nullptr; // the dlopen handle, for the rows' functions
  std::string error;       // why loading failed; empty when loaded

  void load(const std::string &preferred) {
    std::vector<std::string> names;
    if (!preferred.empty())
      names.push_back(preferred);
    names.insert(names.end(), {"libcublas.so.13", "libcublas.so.12",
                               "/usr/local/cuda/lib64/libcublas.so.13",
                               "/usr/local/cuda/lib64/libcublas.so.12"});
    void *lib = nullptr;
    std::string tried;
    for (const std::string &n : names) {
      if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
      const char *e = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(e ? e : n);
    }
    if (!lib) {
      error = "cannot load cuBLAS (" + tried +
              "); put libcublas.so.13 on LD_LIBRARY_PATH or set "
              "RC_CUBLAS_LIBRARY";
      return;
    }
    library = lib;
#define RC_RESOLVE(name, params)                                               \
  if (error.empty() &&                                                         \
      !(name = reinterpret_cast<decltype(name)>(dlsym(lib, #name))))           \
    error = std::string("cuBLAS library lacks ") + #name;
    RC_CUBLAS_ENTRY_POINTS(RC_RESOLVE)
#undef RC_RESOLVE
    cublasGetStatusString = reinterpret_cast<decltype(cublasGetStatusString)>(
        dlsym(lib, "cublasGetStatusString"));
  }
};

// Loaded once per process, at the first session's first cuBLAS call.
const CublasLibrary &loadLibrary(const std::string &preferred) {
  static CublasLibrary lib;
  static std::once_flag once;
  std::call_once(once, [&] { lib.load(preferred); });
  return lib;
}

class CudaBlas : public BlasContext {
public:
  CudaBlas(DeviceContext &ctx, StreamMapper toStream, const CublasLibrary &lib)
      : ctx_(ctx), toStream_(std::move(toStream)), lib_(lib) {}

  ~CudaBlas() override {
    for (auto &kv : handles_) {
      lib_.cublasDestroy_v2(kv.second.h);
      if (kv.second.scratch)
        ctx_.free(kv.second.scratch);
    }
  }

  void *nativeHandle(uint64_t handle) override {
    auto it = handles_.find(handle);
    if (it == handles_.end())
      return nullptr;
    // A row may set its stream (cublasSetStream_v2): the next GEMM sets
    // its own again.
    it->second.streamSet = false;
    return it->second.h;
  }

  void *librarySymbol(const char *name) override {
    return lib_.library ? dlsym(lib_.library, name) : nullptr;
  }

  OpStatus create(uint64_t handle) override {
    cublasHandle_t h = nullptr;
    OpStatus st = check(lib_.cublasCreate_v2(&h));
    if (!st.ok())
      return st;
    Handle &s = handles_[handle];
    s.h = h;
    return st;
  }

  OpStatus destroy(uint64_t handle) override {
    auto it = handles_.find(handle);
    if (it == handles_.end())
      return OpStatus::success();
    OpStatus st = check(lib_.cublasDestroy_v2(it->second.h));
    if (it->second.scratch) {
      // Pending batched calls may still read it.
      ctx_.streamSynchronize(it->second.scratchStream);
      ctx_.free(it->second.scratch);
    }
    handles_.erase(it);
    return st;
  }

  OpStatus setWorkspace(uint64_t handle, uint64_t addr,
                        uint64_t size) override {
    Handle &s = handles_[handle];
    return check(lib_.cublasSetWorkspace_v2(s.h, reinterpret_cast<void *>(addr),
                                            size_t(size)));
  }

  OpStatus gemm(uint64_t handle, const BlasGemm &g) override {
    Handle *s = nullptr;
    OpStatus st = prepare(handle, g.stream, g.mathMode, &s);
    if (!st.ok())
      return st;
    auto opA = cublasOperation_t(g.transA), opB = cublasOperation_t(g.transB);
    auto ptr = [](uint64_t p) { return reinterpret_cast<void *>(p); };
    auto fp = [](uint64_t p) { return reinterpret_cast<float *>(p); };
    auto ct = cublasComputeType_t(g.computeType);
    auto algo = cublasGemmAlgo_t(g.algo);
    auto ta = cudaDataType(g.a.type), tb = cudaDataType(g.b.type),
         tc = cudaDataType(g.c.type);
    // Device scalars: their addresses, read by the GEMM in stream order.
    const void *alpha = g.scalarsOnDevice ? ptr(g.alphaAddress) : g.alpha;
    const void *beta = g.scalarsOnDevice ? ptr(g.betaAddress) : g.beta;
    const float *fa = static_cast<const float *>(alpha);
    const float *fb = static_cast<const float *>(beta);
    int lda = int(g.a.ld), ldb = int(g.b.ld), ldc = int(g.c.ld);
    if (g.a.ld > INT32_MAX || g.b.ld > INT32_MAX || g.c.ld > INT32_MAX)
      return OpStatus::fail(kErrInvalidValue, "leading dimension over 2^31");
    uint64_t arrays = 0;
    if (isPointerArrayApi(g.api)) {
      if (g.batchCount == 0)
        return OpStatus::success();
      std::vector<uint64_t> all;
      all.reserve(size_t(g.batchCount) * 3);
      all.insert(all.end(), g.aPtrs.begin(), g.aPtrs.end());
      all.insert(all.end(), g.bPtrs.begin(), g.bPtrs.end());
      all.insert(all.end(), g.cPtrs.begin(), g.cPtrs.end());
      if (!(st = upload(*s, g.stream, all, &arrays)).ok())
        return st;
    }
    uint64_t n8 = uint64_t(g.batchCount) * 8;
    if (g.scalarsOnDevice && !(st = check(lib_.cublasSetPointerMode_v2(
                                   s->h, CUBLAS_POINTER_MODE_DEVICE)))
                                  .ok())
      return st;
    cublasStatus_t r = CUBLAS_STATUS_NOT_SUPPORTED;
    switch (g.api) {
    case GemmApi::Sgemm:
      r = lib_.cublasSgemm_v2(s->h, opA, opB, g.m, g.n, g.k, fa, fp(g.a.ptr),
                              lda, fp(g.b.ptr), ldb, fb, fp(g.c.ptr), ldc);
      break;
    case GemmApi::GemmEx:
      r = lib_.cublasGemmEx(s->h, opA, opB, g.m, g.n, g.k, alpha, ptr(g.a.ptr),
                            ta, lda, ptr(g.b.ptr), tb, ldb, beta, ptr(g.c.ptr),
                            tc, ldc, ct, algo);
      break;
    case GemmApi::SgemmStridedBatched:
      r = lib_.cublasSgemmStridedBatched(
          s->h, opA, opB, g.m, g.n, g.k, fa, fp(g.a.ptr), lda, g.a.stride,
          fp(g.b.ptr), ldb, g.b.stride, fb, fp(g.c.ptr), ldc, g.c.stride,
          g.batchCount);
      break;
    case GemmApi::GemmStridedBatchedEx:
      r = lib_.cublasGemmStridedBatchedEx(
          s->h, opA, opB, g.m, g.n, g.k, alpha, ptr(g.a.ptr), ta, lda,
          g.a.stride, ptr(g.b.ptr), tb, ldb, g.b.stride, beta, ptr(g.c.ptr), tc,
          ldc, g.c.stride, g.batchCount, ct, algo);
      break;
    case GemmApi::SgemmBatched:
      r = lib_.cublasSgemmBatched(
          s->h, opA, opB, g.m, g.n, g.k, fa,
          reinterpret_cast<const float *const *>(arrays), lda,
          reinterpret_cast<const float *const *>(arrays + n8), ldb, fb,
          reinterpret_cast<float *const *>(arrays + 2 * n8), ldc, g.batchCount);
      break;
    case GemmApi::GemmBatchedEx:
      r = lib_.cublasGemmBatchedEx(
          s->h, opA, opB, g.m, g.n, g.k, alpha,
          reinterpret_cast<const void *const *>(arrays), ta, lda,
          reinterpret_cast<const void *const *>(arrays + n8), tb, ldb, beta,
          reinterpret_cast<void *const *>(arrays + 2 * n8), tc, ldc,
          g.batchCount, ct, algo);
      break;
    }
    if (g.scalarsOnDevice) // rows and later GEMMs take host scalars
      lib_.cublasSetPointerMode_v2(s->h, CUBLAS_POINTER_MODE_HOST);
    return check(r);
  }

  void streamDestroyed(NativeHandle stream) override {
    for (auto &kv : handles_) {
      Handle &s = kv.second;
      if (s.scratch && s.scratchStream == stream) {
        // Batched calls still reading the scratch finish first; later ones
        // order against the legacy default stream instead.
        ctx_.streamSynchronize(stream);
        s.scratchStream = 0;
      }
      if (s.streamSet && s.stream == stream) {
        lib_.cublasSetStream_v2(s.h, nullptr);
        s.streamSet = false;
      }
    }
  }

  OpStatus trsmBatched(uint64_t handle, const BlasTrsm &t) override {
    Handle *s = nullptr;
    OpStatus st = prepare(handle, t.stream, t.mathMode, &s);
    if (!st.ok() || t.batchCount == 0)
      return st;
    std::vector<uint64_t> all(t.aPtrs);
    all.insert(all.end(), t.bPtrs.begin(), t.bPtrs.end());
    uint64_t arrays = 0;
    if (!(st = upload(*s, t.stream, all, &arrays)).ok())
      return st;
    return check(lib_.cublasStrsmBatched(
        s->h, cublasSideMode_t(t.side), cublasFillMode_t(t.uplo),
        cublasOperation_t(t.trans), cublasDiagType_t(t.diag), t.m, t.n,
        &t.alpha, reinterpret_cast<const float *const *>(arrays), int(t.lda),
        reinterpret_cast<float *const *>(arrays + uint64_t(t.batchCount) * 8),
        int(t.ldb), t.batchCount));
  }

  OpStatus luBatched(uint64_t handle, const BlasLu &lu) override {
    Handle *s = nullptr;
    OpStatus st = prepare(handle, lu.stream, lu.mathMode, &s);
    if (!st.ok() || lu.batchCount == 0)
      return st;
    std::vector<uint64_t> all(lu.aPtrs);
    all.insert(all.end(), lu.cPtrs.begin(), lu.cPtrs.end());
    uint64_t arrays = 0;
    if (!(st = upload(*s, lu.stream, all, &arrays)).ok())
      return st;
    uint64_t cArrays = arrays + uint64_t(lu.batchCount) * 8;
    int *piv = reinterpret_cast<int *>(lu.pivots);
    int *info = reinterpret_cast<int *>(lu.info);
    int n = lu.n, lda = int(lu.lda), ldc = int(lu.ldc), b = lu.batchCount;
    // One typed call per element type; the arrays are the server's copies.
    auto run = [&](auto getrf, auto getri, auto *element) {
      using T = std::remove_pointer_t<decltype(element)>;
      if (!lu.inverse)
        return getrf(s->h, n, reinterpret_cast<T *const *>(arrays), lda, piv,
                     info, b);
      return getri(s->h, n, reinterpret_cast<const T *const *>(arrays), lda,
                   piv, reinterpret_cast<T *const *>(cArrays), ldc, info, b);
    };
    switch (lu.type) {
    case kLuR32F:
      return check(run(lib_.cublasSgetrfBatched, lib_.cublasSgetriBatched,
                       static_cast<float *>(nullptr)));
    case kLuR64F:
      return check(run(lib_.cublasDgetrfBatched, lib_.cublasDgetriBatched,
                       static_cast<double *>(nullptr)));
    case kLuC32F:
      return check(run(lib_.cublasCgetrfBatched, lib_.cublasCgetriBatched,
                       static_cast<cuComplex *>(nullptr)));
    default:
      return check(run(lib_.cublasZgetrfBatched, lib_.cublasZgetriBatched,
                       static_cast<cuDoubleComplex *>(nullptr)));
    }
  }

private:
  struct Handle {
    cublasHandle_t h = nullptr;
    bool streamSet = false;
    NativeHandle stream = 0;
    bool modeSet = false;
    uint32_t mathMode = 0;
    uint64_t scratch = 0; // device copy of the last pointer arrays
    uint64_t scratchSize = 0;
    NativeHandle scratchStream = 0;
  };

  OpStatus check(cublasStatus_t r) const {
    if (r == CUBLAS_STATUS_SUCCESS)
      return OpStatus::success();
    const char *name =
        lib_.cublasGetStatusString ? lib_.cublasGetStatusString(r) : nullptr;
    std::string what = name ? name : "cublasStatus " + std::to_string(int(r));
    int code = r == CUBLAS_STATUS_INVALID_VALUE   ? kErrInvalidValue
               : r == CUBLAS_STATUS_ALLOC_FAILED  ? kErrMemoryAllocation
               : r == CUBLAS_STATUS_NOT_SUPPORTED ? kErrNotSupported
                                                  : kErrUnknown;
    return OpStatus::fail(code, "cuBLAS returned " + what);
  }

  OpStatus prepare(uint64_t handle, NativeHandle stream, uint32_t mode,
                   Handle **out) {
    auto it = handles_.find(handle);
    if (it == handles_.end())
      return OpStatus::fail(kErrInvalidResourceHandle, "no such cuBLAS handle");
    Handle &s = it->second;
    OpStatus st;
    if (!s.streamSet || s.stream != stream) {
      st = check(lib_.cublasSetStream_v2(
          s.h, static_cast<cudaStream_t>(toStream_(stream))));
      if (!st.ok())
        return st;
      s.streamSet = true, s.stream = stream;
    }
    if (!s.modeSet || s.mathMode != mode) {
      if (!(st = check(lib_.cublasSetMathMode(s.h, cublasMath_t(mode)))).ok())
        return st;
      s.modeSet = true, s.mathMode = mode;
    }
    *out = &s;
    return st;
  }

  // Copies `ptrs` into the handle's device scratch buffer, ordered on
  // `stream`. Reuse on the same stream is ordered by the stream itself; a
  // different stream first waits for the last user of the buffer.
  OpStatus upload(Handle &s, NativeHandle stream,
                  const std::vector<uint64_t> &ptrs, uint64_t *addr) {
    uint64_t bytes = uint64_t(ptrs.size()) * 8;
    OpStatus st;
    if (s.scratch && s.scratchStream != stream &&
        !(st = ctx_.streamSynchronize(s.scratchStream)).ok())
      return st;
    if (bytes > s.scratchSize) {
      if (s.scratch) {
        if (!(st = ctx_.streamSynchronize(stream)).ok())
          return st;
        ctx_.free(s.scratch);
        s.scratch = 0, s.scratchSize = 0;
      }
      uint64_t size = std::max<uint64_t>(bytes, 4096);
      if (!(st = ctx_.malloc(size, &s.scratch)).ok())
        return st;
      s.scratchSize = size;
    }
    s.scratchStream = stream;
    st = ctx_.copyH2D(s.scratch, reinterpret_cast<const uint8_t *>(ptrs.data()),
                      bytes, stream);
    *addr = s.scratch;
    return st;
  }

  DeviceContext &ctx_;
  StreamMapper toStream_;
  const CublasLibrary &lib_;
  std::map<uint64_t, Handle> handles_;
};

} // namespace

std::unique_ptr<BlasContext> makeCudaBlas(DeviceContext &ctx,
                                          StreamMapper toStream,
                                          const std::string &library,
                                          std::string *error) {
  const CublasLibrary &lib = loadLibrary(library);
  if (!lib.error.empty()) {
    if (error)
      *error = lib.error;
    return nullptr;
  }
  return std::make_unique<CudaBlas>(ctx, std::move(toStream), lib);
}

} // namespace rc::server
