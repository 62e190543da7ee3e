// librc_cudart's side of the cuBLAS ABI (rc_cublas_abi.h): serializes each
// cuBLAS call into a Cublas* wire command of the runtime's batch.
#include "api/global.h"
#include "rc_cublas_abi.h"

namespace {

using rc::rt::runtime;
namespace wire = rc::wire;

int append(wire::Command type, const char *call, void *stream,
           const rc::rt::Runtime::CommandBuilder &build) {
  return runtime().libraries().appendCommand(
      type, call, static_cast<cudaStream_t>(stream), build);
}

// librc_cublas numbers its GEMM entry points as the wire does.
static_assert(int(kRcSgemm) == int(wire::CublasGemmApi::Sgemm) &&
                  int(kRcGemmEx) == int(wire::CublasGemmApi::GemmEx) &&
                  int(kRcSgemmStridedBatched) ==
                      int(wire::CublasGemmApi::SgemmStridedBatched) &&
                  int(kRcGemmStridedBatchedEx) ==
                      int(wire::CublasGemmApi::GemmStridedBatchedEx) &&
                  int(kRcSgemmBatched) ==
                      int(wire::CublasGemmApi::SgemmBatched) &&
                  int(kRcGemmBatchedEx) ==
                      int(wire::CublasGemmApi::GemmBatchedEx) &&
                  int(kRcGemmBatchedEx) == int(wire::CublasGemmApi::MAX),
              "rc_cublas_abi.h's RcCublasGemmApi must follow "
              "schema/protocol.fbs's CublasGemmApi");

wire::CublasOperand operand(const RcCublasOperand &o) {
  return wire::CublasOperand(o.ptr, o.ld, o.stride, o.type);
}

} // namespace

extern "C" {

int __rc_cublas_create(uint64_t handle) {
  return append(wire::Command::CublasCreate, "cublasCreate_v2", nullptr,
                [&](flatbuffers::FlatBufferBuilder &fbb, uint64_t) {
                  return wire::CreateCublasCreate(fbb, handle).Union();
                });
}

int __rc_cublas_destroy(uint64_t handle) {
  return append(wire::Command::CublasDestroy, "cublasDestroy_v2", nullptr,
                [&](flatbuffers::FlatBufferBuilder &fbb, uint64_t) {
                  return wire::CreateCublasDestroy(fbb, handle).Union();
                });
}

int __rc_cublas_set_workspace(uint64_t handle, uint64_t addr, uint64_t size) {
  return append(
      wire::Command::CublasSetWorkspace, "cublasSetWorkspace_v2", nullptr,
      [&](flatbuffers::FlatBufferBuilder &fbb, uint64_t) {
        return wire::CreateCublasSetWorkspace(fbb, handle, addr, size).Union();
      });
}

int __rc_cublas_gemm(const RcCublasGemm *call) {
  // By value: in a capture the serializer is kept as the graph node.
  RcCublasGemm g = *call;
  return append(wire::Command::CublasGemm, g.call, g.stream,
                [g](flatbuffers::FlatBufferBuilder &fbb, uint64_t stream) {
                  // Device scalars travel as their 8-byte addresses.
                  size_t bytes = g.scalarsOnDevice ? 8 : g.scalarSize;
                  auto alpha = fbb.CreateVector(g.alpha, bytes);
                  auto beta = fbb.CreateVector(g.beta, bytes);
                  wire::CublasOperand a = operand(g.a), b = operand(g.b),
                                      c = operand(g.c);
                  return wire::CreateCublasGemm(
                             fbb, wire::CublasGemmApi(g.api), g.handle, stream,
                             g.mathMode, g.transA, g.transB, g.m, g.n, g.k,
                             alpha, beta, &a, &b, &c, g.batchCount,
                             g.computeType, g.algo, g.scalarsOnDevice != 0)
                      .Union();
                });
}

int __rc_cublas_trsm_batched(const RcCublasTrsm *t) {
  return append(wire::Command::CublasTrsmBatched, "cublasStrsmBatched",
                t->stream,
                [&](flatbuffers::FlatBufferBuilder &fbb, uint64_t stream) {
                  return wire::CreateCublasTrsmBatched(
                             fbb, t->handle, stream, t->mathMode, t->side,
                             t->uplo, t->trans, t->diag, t->m, t->n, t->alpha,
                             t->a, t->lda, t->b, t->ldb, t->batchCount)
                      .Union();
                });
}

int __rc_cublas_lu_batched(const RcCublasLu *lu) {
  return append(wire::Command::CublasLuBatched, lu->call, lu->stream,
                [&](flatbuffers::FlatBufferBuilder &fbb, uint64_t stream) {
                  return wire::CreateCublasLuBatched(
                             fbb, lu->handle, stream, lu->mathMode,
                             lu->inverse != 0, lu->type, lu->n, lu->a, lu->lda,
                             lu->pivots, lu->c, lu->ldc, lu->info,
                             lu->batchCount)
                      .Union();
                });
}

} // extern "C"
