// cuBLAS on rc-server: what a session's DeviceContext offers for the
// CublasCreate/Destroy/SetWorkspace/Gemm/TrsmBatched commands. The executor
// (blas_commands.cpp) validates every handle, stream and device range
// first, including the contents of the pointer arrays of the *Batched calls,
// which it reads and hands over here, so backends never trust client bytes:
//   cublas_cuda.cpp - the real libcublas (dlopen'd), one handle per client
//                     handle in the session's context
//   cublas_host.cpp - a plain CPU reference on the host test device
#ifndef RC_SERVER_CUBLAS_CONTEXT_H
#define RC_SERVER_CUBLAS_CONTEXT_H

#include "rc/server/backend.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rc::server {

// Numbering of the client's cuBLAS 12.4 / the server's 13.0 headers (equal).
enum BlasOp : int { kOpN = 0, kOpT = 1, kOpC = 2 };
enum BlasSide : int { kSideLeft = 0, kSideRight = 1 };
enum BlasFill : int { kFillLower = 0, kFillUpper = 1 };
enum BlasDiag : int { kDiagNonUnit = 0, kDiagUnit = 1 };
// The cudaDataType numbers of the element types getrf/getri take.
enum BlasLuType : int { kLuR32F = 0, kLuR64F = 1, kLuC32F = 4, kLuC64F = 5 };

enum class GemmApi : int {
  Sgemm,
  GemmEx,
  SgemmStridedBatched,
  GemmStridedBatchedEx,
  SgemmBatched,
  GemmBatchedEx
};
// The exported name the client called ("cublasGemmEx", ...).
const char *gemmApiName(GemmApi api);
inline bool isPointerArrayApi(GemmApi api) {
  return api == GemmApi::SgemmBatched || api == GemmApi::GemmBatchedEx;
}

struct BlasOperand {
  uint64_t ptr = 0;   // matrix, or (pointer-array APIs) the array's address
  int64_t ld = 0;     // leading dimension, elements
  int64_t stride = 0; // strided batches: elements between matrices
  int type = 0;       // cudaDataType
};

struct BlasGemm {
  GemmApi api = GemmApi::GemmEx;
  NativeHandle stream = 0;
  uint32_t mathMode = 0;
  int transA = kOpN, transB = kOpN;
  int m = 0, n = 0, k = 0;
  // Host scalars by value (2, 4 or 8 bytes by compute type), 8-aligned;
  // or, with scalarsOnDevice (CUBLAS_POINTER_MODE_DEVICE), the validated
  // device addresses of alpha and beta.
  alignas(8) uint8_t alpha[8] = {};
  alignas(8) uint8_t beta[8] = {};
  bool scalarsOnDevice = false;
  uint64_t alphaAddress = 0, betaAddress = 0;
  BlasOperand a, b, c;
  int batchCount = 1;
  int computeType = 0; // cublasComputeType_t
  int algo = 0;        // cublasGemmAlgo_t
  // Pointer-array APIs: the arrays' contents, read and validated by the
  // executor (batchCount entries each).
  std::vector<uint64_t> aPtrs, bPtrs, cPtrs;
};

struct BlasTrsm {
  NativeHandle stream = 0;
  uint32_t mathMode = 0;
  int side = kSideLeft, uplo = kFillLower, trans = kOpN, diag = kDiagNonUnit;
  int m = 0, n = 0;
  float alpha = 1;
  uint64_t aArray = 0, bArray = 0; // device addresses of the pointer arrays
  int64_t lda = 0, ldb = 0;
  int batchCount = 0;
  std::vector<uint64_t> aPtrs, bPtrs; // their validated contents
};

// cublas{S,D,C,Z}getrfBatched / getriBatched (wire::CublasLuBatched).
struct BlasLu {
  NativeHandle stream = 0;
  uint32_t mathMode = 0;
  bool inverse = false; // getri
  int type = 0;         // cudaDataType: R_32F, R_64F, C_32F, C_64F
  int n = 0;
  int64_t lda = 0, ldc = 0;
  uint64_t pivots = 0, info = 0; // device addresses (pivots may be 0)
  int batchCount = 0;
  std::vector<uint64_t> aPtrs, cPtrs; // validated contents of the arrays
};

class BlasContext {
public:
  virtual ~BlasContext() = default;
  virtual OpStatus create(uint64_t handle) = 0;
  virtual OpStatus destroy(uint64_t handle) = 0;
  virtual OpStatus setWorkspace(uint64_t handle, uint64_t addr,
                                uint64_t size) = 0;
  virtual OpStatus gemm(uint64_t handle, const BlasGemm &g) = 0;
  virtual OpStatus trsmBatched(uint64_t handle, const BlasTrsm &t) = 0;
  virtual OpStatus luBatched(uint64_t handle, const BlasLu &lu) = 0;
  // `stream` is about to be destroyed: no handle may keep using it (cuBLAS's
  // own stream, the stream a scratch buffer was last used on).
  virtual void streamDestroyed(NativeHandle stream) { (void)stream; }
  // For the rows of cuBLAS's level-1/2 routines (docs/libraries.md): the
  // library's cublasHandle_t behind a client handle (null: none), and a
  // function of the very library it came from (null: none; the test
  // device's CPU reference has no library).
  virtual void *nativeHandle(uint64_t handle) {
    (void)handle;
    return nullptr;
  }
  virtual void *librarySymbol(const char *name) {
    (void)name;
    return nullptr;
  }
};

// Bytes of one element of a cudaDataType; 0 for types not handled.
size_t blasTypeSize(int cudaDataType);
// Bytes of alpha/beta for a cublasComputeType_t; 0 for unsupported ones.
size_t blasScalarSize(int computeType);
// "CUDA_R_16F" etc. for messages.
std::string blasTypeName(int cudaDataType);
// Whether a number off the wire is a cublasGemmAlgo_t / a cublasMath_t
// (optionally with CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION).
bool blasGemmAlgoKnown(int algo);
bool blasMathModeKnown(uint32_t mode);

// Host test device: `resolve` maps a validated device range to host memory
// (null when outside one allocation).
using HostResolver = std::function<uint8_t *(uint64_t addr, uint64_t size)>;
std::unique_ptr<BlasContext> makeHostBlas(HostResolver resolve);

// Real cuBLAS in the calling thread's current context. `toStream` maps a
// backend stream handle to the CUstream; `ctx` provides memory for the
// server-owned copies of pointer arrays. `library` (CudaSettings::
// cublasLibrary) is tried before the usual names when the process first
// loads libcublas. Null + *error (naming the library) when it cannot be
// loaded.
using StreamMapper = std::function<void *(NativeHandle)>;
std::unique_ptr<BlasContext> makeCudaBlas(DeviceContext &ctx,
                                          StreamMapper toStream,
                                          const std::string &library,
                                          std::string *error);

} // namespace rc::server

#endif
