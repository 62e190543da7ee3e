// The cuBLAS commands: every handle, stream, scalar and device
// range is checked before the backend acts, with exactly the extents the call
// touches (a column-major rows x cols matrix with leading dimension ld spans
// (cols-1)*ld + rows elements). For the *Batched calls the pointer arrays
// live in device memory: the executor reads them (ordered after the work
// that wrote them on the handle's stream), checks every element, and hands
// the checked values to the backend, which never reads client pointers
// itself. Errors name the cuBLAS call.
#include "executor/blas_commands.h"
#include "backend/cublas_context.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <library_types.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace rc::server {

namespace {

// Most pointers one batched call may carry: the server reads the arrays into
// host memory, so bound them (ggml's largest batches are a few thousand).
constexpr int kMaxBatchPointers = 1 << 20;

using i128 = __int128;

// Elements a column-major rows x cols matrix spans; 0 when it is empty.
i128 matrixElems(int64_t rows, int64_t cols, int64_t ld) {
  if (rows <= 0 || cols <= 0)
    return 0;
  return i128(cols - 1) * ld + rows;
}

struct Shape {
  int64_t rows, cols;
};

} // namespace

OpStatus BlasCommands::cublasHandle(uint64_t handle, uint64_t stream,
                                    NativeHandle *s) {
  auto it = cublasHandles_.find(handle);
  if (it == cublasHandles_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown cuBLAS handle " + hexAddress(handle) +
                              " (not created in this session, or destroyed)");
  // A workspace freed behind cuBLAS's back would be written by every call.
  const BlasHandle &h = it->second;
  if (h.workspaceSize && !memory_.inSession(h.workspace, h.workspaceSize))
    return OpStatus::fail(
        kErrInvalidValue,
        "the handle's workspace " + hexAddress(h.workspace) + " + " +
            std::to_string(h.workspaceSize) +
            " bytes is no longer inside one allocation of this "
            "session (freed?)");
  OpStatus st = devices_.bindStream(stream, s);
  if (st.ok() && devices_.bound() != h.device)
    return OpStatus::fail(
        kErrInvalidResourceHandle,
        "the stream is on device " + std::to_string(devices_.bound()) +
            ", the cuBLAS handle on device " + std::to_string(h.device));
  return st;
}

OpStatus BlasCommands::readPointerArray(const char *role, uint64_t array,
                                        int count, uint64_t matrixBytes,
                                        NativeHandle s,
                                        std::vector<uint64_t> *out) {
  uint64_t bytes = uint64_t(count) * 8;
  OpStatus st = memory_.checkRange(
      (std::string(role) + " pointer array").c_str(), array, bytes);
  if (!st.ok() || count == 0)
    return st;
  out->resize(size_t(count));
  // Ordered on the handle's stream: the kernel that computed the pointers
  // (ggml's k_compute_batched_ptrs) has finished when this returns.
  st = devices_.ctx()->copyD2H(reinterpret_cast<uint8_t *>(out->data()), array,
                               bytes, s);
  if (!st.ok())
    return devices_.syncResult(st);
  if (matrixBytes == 0)
    return OpStatus::success(); // nothing of these matrices is touched
  for (int i = 0; i < count; ++i) {
    uint64_t p = (*out)[size_t(i)];
    if (!memory_.inSession(p, matrixBytes))
      return OpStatus::fail(
          kErrInvalidValue,
          std::string(role) + "[" + std::to_string(i) + "] = " + hexAddress(p) +
              ": " + std::to_string(matrixBytes) +
              " bytes there are not inside one allocation of this "
              "session");
  }
  return OpStatus::success();
}

OpStatus BlasCommands::gemm(const wire::CublasGemm &c, std::string *what) {
  BlasGemm g;
  g.api = GemmApi(int(c.api()));
  if (int(c.api()) > int(wire::CublasGemmApi::MAX))
    return OpStatus::fail(kErrInvalidValue, "unknown gemm entry point " +
                                                std::to_string(int(c.api())));
  *what = gemmApiName(g.api);
  OpStatus st = cublasHandle(c.handle(), c.stream(), &g.stream);
  if (!st.ok())
    return st;
  if (!c.a() || !c.b() || !c.c())
    return OpStatus::fail(kErrInvalidValue, "missing matrix operand");
  auto operand = [](const wire::CublasOperand &o) {
    return BlasOperand{o.ptr(), o.ld(), o.stride(), o.type()};
  };
  g.a = operand(*c.a()), g.b = operand(*c.b()), g.c = operand(*c.c());
  g.mathMode = c.math_mode();
  g.transA = c.trans_a(), g.transB = c.trans_b();
  g.m = c.m(), g.n = c.n(), g.k = c.k();
  g.computeType = c.compute_type();
  g.algo = c.algo();
  bool batched = g.api != GemmApi::Sgemm && g.api != GemmApi::GemmEx;
  g.batchCount = batched ? c.batch_count() : 1;

  for (int t : {g.transA, g.transB})
    if (t != kOpN && t != kOpT && t != kOpC)
      return OpStatus::fail(kErrInvalidValue,
                            "invalid cublasOperation_t " + std::to_string(t));
  if (g.m < 0 || g.n < 0 || g.k < 0 || g.batchCount < 0)
    return OpStatus::fail(kErrInvalidValue, "negative m, n, k or batch count");
  bool single = g.api == GemmApi::Sgemm ||
                g.api == GemmApi::SgemmStridedBatched ||
                g.api == GemmApi::SgemmBatched;
  if (single && (g.a.type != CUDA_R_32F || g.b.type != CUDA_R_32F ||
                 g.c.type != CUDA_R_32F))
    return OpStatus::fail(kErrInvalidValue,
                          "the Sgemm calls take CUDA_R_32F only");
  size_t scalar = blasScalarSize(g.computeType);
  if (scalar == 0)
    return OpStatus::fail(kErrNotSupported,
                          "compute type " + std::to_string(g.computeType) +
                              " is not supported by remote-clang");
  if (!blasGemmAlgoKnown(g.algo))
    return OpStatus::fail(kErrInvalidValue,
                          "unknown cublasGemmAlgo_t " + std::to_string(g.algo));
  if (!blasMathModeKnown(g.mathMode))
    return OpStatus::fail(kErrInvalidValue,
                          "unknown cublasMath_t " + std::to_string(g.mathMode));
  size_t na = c.alpha() ? c.alpha()->size() : 0;
  size_t nb = c.beta() ? c.beta()->size() : 0;
  // Device scalars come as their addresses, each of one scalar inside the
  // session's memory.
  size_t wire = c.scalars_on_device() ? 8 : scalar;
  if (na != wire || nb != wire)
    return OpStatus::fail(
        kErrInvalidValue,
        "alpha/beta of " + std::to_string(na) + "/" + std::to_string(nb) +
            " bytes, " +
            (c.scalars_on_device()
                 ? "device scalars take 8 (their addresses)"
                 : "the compute type takes " + std::to_string(scalar)));
  std::memcpy(g.alpha, c.alpha()->data(), na);
  std::memcpy(g.beta, c.beta()->data(), nb);
  if ((g.scalarsOnDevice = c.scalars_on_device())) {
    std::memcpy(&g.alphaAddress, g.alpha, 8);
    std::memcpy(&g.betaAddress, g.beta, 8);
    if (!(st = memory_.checkRange("alpha", g.alphaAddress, scalar)).ok() ||
        !(st = memory_.checkRange("beta", g.betaAddress, scalar)).ok())
      return st;
  }

  // op(A) is m x k, op(B) is k x n, C is m x n (column-major).
  Shape sa = g.transA == kOpN ? Shape{g.m, g.k} : Shape{g.k, g.m};
  Shape sb = g.transB == kOpN ? Shape{g.k, g.n} : Shape{g.n, g.k};
  Shape sc{g.m, g.n};
  struct Check {
    const char *role;
    BlasOperand &op;
    Shape shape;
    bool touched;
  } checks[3] = {{"A", g.a, sa, g.m && g.n && g.k},
                 {"B", g.b, sb, g.m && g.n && g.k},
                 {"C", g.c, sc, g.m && g.n}};
  if (g.batchCount == 0)
    return OpStatus::success(); // cuBLAS does nothing either
  for (Check &ck : checks) {
    size_t es = blasTypeSize(ck.op.type);
    if (es == 0)
      return OpStatus::fail(kErrNotSupported, std::string(ck.role) +
                                                  " has unsupported " +
                                                  blasTypeName(ck.op.type));
    if (ck.op.ld < std::max<int64_t>(1, ck.shape.rows))
      return OpStatus::fail(kErrInvalidValue,
                            std::string("ld") + char(ck.role[0] + 32) + " = " +
                                std::to_string(ck.op.ld) + " < rows of " +
                                ck.role + " (" + std::to_string(ck.shape.rows) +
                                ")");
    i128 elems =
        ck.touched ? matrixElems(ck.shape.rows, ck.shape.cols, ck.op.ld) : 0;
    if (isPointerArrayApi(g.api)) {
      std::vector<uint64_t> *out = &ck.op == &g.a   ? &g.aPtrs
                                   : &ck.op == &g.b ? &g.bPtrs
                                                    : &g.cPtrs;
      if (g.batchCount > kMaxBatchPointers)
        return OpStatus::fail(kErrInvalidValue,
                              "batch count " + std::to_string(g.batchCount) +
                                  " exceeds " +
                                  std::to_string(kMaxBatchPointers));
      if (elems * i128(es) > i128(UINT64_MAX / 2))
        return OpStatus::fail(kErrInvalidValue,
                              std::string(ck.role) + " is too large");
      // A graph node's arrays are written by the nodes before it: they are
      // read and checked when the graph runs (graph_commands.cpp).
      st = gemmCheckOnly_
               ? memory_.checkRange(
                     (std::string(ck.role) + " pointer array").c_str(),
                     ck.op.ptr, uint64_t(g.batchCount) * 8)
               : readPointerArray(ck.role, ck.op.ptr, g.batchCount,
                                  uint64_t(elems * i128(es)), g.stream, out);
      if (!st.ok())
        return st;
      continue;
    }
    if (elems == 0)
      continue;
    // Strided batches: matrix i starts at ptr + i*stride elements.
    i128 last = batched ? i128(g.batchCount - 1) * ck.op.stride : 0;
    i128 lo = last < 0 ? last : 0, hi = (last > 0 ? last : 0) + elems;
    i128 start = i128(ck.op.ptr) + lo * i128(es);
    i128 bytes = (hi - lo) * i128(es);
    if (start < 0 || bytes > i128(UINT64_MAX) ||
        !memory_.inSession(uint64_t(start), uint64_t(bytes)))
      return OpStatus::fail(
          kErrInvalidValue,
          std::string(ck.role) + " range " + hexAddress(uint64_t(start)) +
              " + " + std::to_string(uint64_t(bytes)) +
              " bytes (the elements this call touches) is not "
              "inside one allocation of this session");
  }
  if (gemmCheckOnly_)
    return OpStatus::success(); // a graph node being checked (checkNode)
  std::string why;
  BlasContext *blas = devices_.ctx()->blas(&why);
  if (!blas)
    return OpStatus::fail(kErrNotSupported, why);
  return blas->gemm(c.handle(), g);
}

OpStatus BlasCommands::handle(const wire::CublasTrsmBatched &c,
                              CommandAnswer &) {
  BlasTrsm t;
  OpStatus st = cublasHandle(c.handle(), c.stream(), &t.stream);
  if (!st.ok())
    return st;
  t.mathMode = c.math_mode();
  t.side = c.side(), t.uplo = c.uplo(), t.trans = c.trans(), t.diag = c.diag();
  t.m = c.m(), t.n = c.n(), t.alpha = c.alpha();
  t.aArray = c.a(), t.bArray = c.b(), t.lda = c.lda(), t.ldb = c.ldb();
  t.batchCount = c.batch_count();
  if ((t.side != kSideLeft && t.side != kSideRight) ||
      (t.uplo != kFillLower && t.uplo != kFillUpper) ||
      (t.trans != kOpN && t.trans != kOpT && t.trans != kOpC) ||
      (t.diag != kDiagNonUnit && t.diag != kDiagUnit))
    return OpStatus::fail(kErrInvalidValue,
                          "invalid side, fill mode, operation or diag");
  if (!blasMathModeKnown(t.mathMode))
    return OpStatus::fail(kErrInvalidValue,
                          "unknown cublasMath_t " + std::to_string(t.mathMode));
  if (t.m < 0 || t.n < 0 || t.batchCount < 0 ||
      t.batchCount > kMaxBatchPointers)
    return OpStatus::fail(kErrInvalidValue, "bad m, n or batch count");
  int64_t order = t.side == kSideLeft ? t.m : t.n; // A is order x order
  if (t.lda < std::max<int64_t>(1, order) || t.ldb < std::max(1, t.m))
    return OpStatus::fail(kErrInvalidValue,
                          "lda or ldb smaller than the matrix rows");
  bool touched = t.m && t.n;
  uint64_t aBytes =
      touched ? uint64_t(matrixElems(order, order, t.lda)) * 4 : 0;
  uint64_t bBytes = touched ? uint64_t(matrixElems(t.m, t.n, t.ldb)) * 4 : 0;
  if (!(st = readPointerArray("A", t.aArray, t.batchCount, aBytes, t.stream,
                              &t.aPtrs))
           .ok() ||
      !(st = readPointerArray("B", t.bArray, t.batchCount, bBytes, t.stream,
                              &t.bPtrs))
           .ok())
    return st;
  std::string why;
  BlasContext *blas = devices_.ctx()->blas(&why);
  if (!blas)
    return OpStatus::fail(kErrNotSupported, why);
  return blas->trsmBatched(c.handle(), t);
}

OpStatus BlasCommands::handle(const wire::CublasLuBatched &c,
                              CommandAnswer &a) {
  BlasLu lu;
  OpStatus st = cublasHandle(c.handle(), c.stream(), &lu.stream);
  if (!st.ok())
    return st;
  lu.mathMode = c.math_mode();
  lu.inverse = c.inverse();
  lu.type = c.type();
  lu.n = c.n();
  lu.lda = c.lda(), lu.ldc = c.ldc();
  lu.pivots = c.pivots(), lu.info = c.info();
  lu.batchCount = c.batch_count();
  static const char *const names[2][4] = {
      {"cublasSgetrfBatched", "cublasDgetrfBatched", "cublasCgetrfBatched",
       "cublasZgetrfBatched"},
      {"cublasSgetriBatched", "cublasDgetriBatched", "cublasCgetriBatched",
       "cublasZgetriBatched"}};
  int which = lu.type == kLuR32F   ? 0
              : lu.type == kLuR64F ? 1
              : lu.type == kLuC32F ? 2
              : lu.type == kLuC64F ? 3
                                   : -1;
  if (which < 0)
    return OpStatus::fail(kErrInvalidValue, "getrf/getri of cudaDataType " +
                                                std::to_string(lu.type));
  *a.what = names[lu.inverse][which];
  if (!blasMathModeKnown(lu.mathMode))
    return OpStatus::fail(kErrInvalidValue, "unknown cublasMath_t " +
                                                std::to_string(lu.mathMode));
  if (lu.n < 0 || lu.batchCount < 0 || lu.batchCount > kMaxBatchPointers)
    return OpStatus::fail(kErrInvalidValue, "bad n or batch count");
  if (lu.lda < std::max(1, lu.n) || (lu.inverse && lu.ldc < std::max(1, lu.n)))
    return OpStatus::fail(kErrInvalidValue, "lda or ldc smaller than n");
  if (lu.batchCount == 0)
    return st;
  uint64_t es = blasTypeSize(lu.type);
  bool touched = lu.n > 0;
  uint64_t aBytes =
      touched ? uint64_t(matrixElems(lu.n, lu.n, lu.lda)) * es : 0;
  uint64_t cBytes = touched && lu.inverse
                        ? uint64_t(matrixElems(lu.n, lu.n, lu.ldc)) * es
                        : 0;
  uint64_t perBatch = uint64_t(lu.batchCount) * 4;
  if (!(st = memory_.checkRange("info", lu.info, perBatch)).ok() ||
      (lu.pivots && !(st = memory_.checkRange("pivots", lu.pivots,
                                              perBatch * uint64_t(lu.n)))
                         .ok()) ||
      !(st = readPointerArray("A", c.a(), lu.batchCount, aBytes, lu.stream,
                              &lu.aPtrs))
           .ok() ||
      (lu.inverse && !(st = readPointerArray("C", c.c(), lu.batchCount, cBytes,
                                             lu.stream, &lu.cPtrs))
                          .ok()))
    return st;
  std::string why;
  BlasContext *blas = devices_.ctx()->blas(&why);
  if (!blas)
    return OpStatus::fail(kErrNotSupported, why);
  return blas->luBatched(c.handle(), lu);
}

OpStatus BlasCommands::handle(const wire::CublasCreate &c, CommandAnswer &) {
  uint64_t h = c.handle();
  if (h == 0 || cublasHandles_.count(h))
    return OpStatus::fail(kErrInvalidValue,
                          "cuBLAS handle " + hexAddress(h) +
                              " is reserved or already in use");
  std::string why;
  BlasContext *blas = devices_.ctx()->blas(&why);
  if (!blas)
    return OpStatus::fail(kErrNotSupported, why);
  OpStatus st = blas->create(h);
  if (st.ok())
    cublasHandles_[h] = BlasHandle{devices_.bound(), 0, 0};
  return st;
}

OpStatus BlasCommands::handle(const wire::CublasDestroy &c, CommandAnswer &) {
  uint64_t h = c.handle();
  auto it = cublasHandles_.find(h);
  if (it == cublasHandles_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown cuBLAS handle " + hexAddress(h));
  OpStatus st = devices_.bind(it->second.device);
  if (!st.ok())
    return st;
  std::string why;
  BlasContext *blas = devices_.ctx()->blas(&why);
  libraries_.forgetObject(blas->nativeHandle(h));
  st = blas->destroy(h);
  cublasHandles_.erase(it);
  return st;
}

OpStatus BlasCommands::handle(const wire::CublasSetWorkspace &c,
                              CommandAnswer &) {
  auto it = cublasHandles_.find(c.handle());
  if (it == cublasHandles_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown cuBLAS handle " + hexAddress(c.handle()));
  OpStatus st = devices_.bind(it->second.device);
  if (!st.ok() ||
      (c.size() &&
       !(st = memory_.checkRange("workspace", c.addr(), c.size())).ok()))
    return st;
  uint64_t addr = c.size() ? c.addr() : 0;
  std::string why;
  st = devices_.ctx()->blas(&why)->setWorkspace(c.handle(), addr, c.size());
  if (st.ok())
    it->second.workspace = addr, it->second.workspaceSize = c.size();
  return st;
}

OpStatus BlasCommands::handle(const wire::CublasGemm &c, CommandAnswer &a) {
  return gemm(c, a.what);
}

} // namespace rc::server
