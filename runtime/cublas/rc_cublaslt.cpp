// cuBLASLt's entry points that need more than their rows
// (abi/include/rc/libcalls/cublaslt.def, docs/libraries.md); the rest are
// generated. The client keeps what each descriptor, layout and preference
// was made and set with, for two things the server would otherwise be
// asked: the size of a matmul's alpha and beta (its scale type), and a
// heuristic query already answered for the same shapes, which costs no
// second round trip.
#include "lib_forward.h"

#include <cublasLt.h>

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

extern "C" int __rc_report_unsupported(const char *call, const char *library);

namespace {

constexpr cublasStatus_t kFailed = CUBLAS_STATUS_INTERNAL_ERROR;

std::mutex gMu;
// What each object was made and set with, in order: a heuristic query's
// cache key is its objects' histories.
std::map<const void *, std::string> gHistory;
// A matmul descriptor's alpha/beta bytes (its scale type's size).
std::map<const void *, uint64_t> gScaleBytes;
struct Heuristic {
  std::vector<cublasLtMatmulHeuristicResult_t> results;
  int count = 0;
};
std::map<std::string, Heuristic> gHeuristics;

template <class T> std::string bytesOf(const T &v) {
  return std::string(reinterpret_cast<const char *>(&v), sizeof v);
}

void noteMade(const void *object, const std::string &how) {
  std::lock_guard<std::mutex> lock(gMu);
  gHistory[object] = how;
}

// Sets an attribute of a descriptor, layout or preference on the server
// and, once it took it, adds the setting to the object's history.
template <class Object, class Attr>
cublasStatus_t setAttribute(rc::lib::Row row, Object object, Attr attr,
                            const void *buf, size_t size) {
  cublasStatus_t st = rc::lib::forward(row, kFailed, object, attr, buf, size);
  if (st == CUBLAS_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> lock(gMu);
    gHistory[object] += bytesOf(int(attr)) + bytesOf(size) +
                        std::string(static_cast<const char *>(buf), size);
  }
  return st;
}

void forget(const void *object) {
  std::lock_guard<std::mutex> lock(gMu);
  gHistory.erase(object);
  gScaleBytes.erase(object);
}

template <class T> T read(const void *buf, size_t size) {
  T v{};
  std::memcpy(&v, buf, size < sizeof v ? size : sizeof v);
  return v;
}

} // namespace

#define RC_API extern "C" __attribute__((visibility("default")))

RC_API cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                               cublasComputeType_t computeType,
                                               cudaDataType_t scaleType) {
  cublasStatus_t st = rc::lib::forward(rc::lib::rows::cublasLtMatmulDescCreate,
                                       kFailed, desc, computeType, scaleType);
  if (st == CUBLAS_STATUS_SUCCESS) {
    noteMade(*desc, "D" + bytesOf(computeType) + bytesOf(scaleType));
    std::lock_guard<std::mutex> lock(gMu);
    gScaleBytes[*desc] = rc::lib::dataTypeBytes(uint64_t(scaleType));
  }
  return st;
}

RC_API cublasStatus_t cublasLtMatmulDescSetAttribute(
    cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
    const void *buf, size_t size) {
  if (!buf)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (attr == CUBLASLT_MATMUL_DESC_POINTER_MODE &&
      read<int32_t>(buf, size) != CUBLASLT_POINTER_MODE_HOST) {
    __rc_report_unsupported("cublasLtMatmulDescSetAttribute("
                            "CUBLASLT_MATMUL_DESC_POINTER_MODE, device)",
                            "cuBLASLt");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  cublasStatus_t st = setAttribute(
      rc::lib::rows::cublasLtMatmulDescSetAttribute, desc, attr, buf, size);
  if (st == CUBLAS_STATUS_SUCCESS && attr == CUBLASLT_MATMUL_DESC_SCALE_TYPE) {
    std::lock_guard<std::mutex> lock(gMu);
    gScaleBytes[desc] = rc::lib::dataTypeBytes(read<uint32_t>(buf, size));
  }
  return st;
}

RC_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  forget(desc);
  return rc::lib::forward(rc::lib::rows::cublasLtMatmulDescDestroy, kFailed,
                          desc);
}

RC_API cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                                 cudaDataType type,
                                                 uint64_t rows, uint64_t cols,
                                                 int64_t ld) {
  cublasStatus_t st =
      rc::lib::forward(rc::lib::rows::cublasLtMatrixLayoutCreate, kFailed,
                       layout, type, rows, cols, ld);
  if (st == CUBLAS_STATUS_SUCCESS)
    noteMade(*layout,
             "L" + bytesOf(type) + bytesOf(rows) + bytesOf(cols) + bytesOf(ld));
  return st;
}

RC_API cublasStatus_t cublasLtMatrixLayoutSetAttribute(
    cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr,
    const void *buf, size_t size) {
  return setAttribute(rc::lib::rows::cublasLtMatrixLayoutSetAttribute, layout,
                      attr, buf, size);
}

RC_API cublasStatus_t
cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  forget(layout);
  return rc::lib::forward(rc::lib::rows::cublasLtMatrixLayoutDestroy, kFailed,
                          layout);
}

RC_API cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
  cublasStatus_t st = rc::lib::forward(
      rc::lib::rows::cublasLtMatmulPreferenceCreate, kFailed, pref);
  if (st == CUBLAS_STATUS_SUCCESS)
    noteMade(*pref, "P");
  return st;
}

RC_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
    const void *buf, size_t size) {
  return setAttribute(rc::lib::rows::cublasLtMatmulPreferenceSetAttribute, pref,
                      attr, buf, size);
}

RC_API cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  forget(pref);
  return rc::lib::forward(rc::lib::rows::cublasLtMatmulPreferenceDestroy,
                          kFailed, pref);
}

// One round trip per distinct query: its objects' histories and the count
// asked for (the handle's device does not change the answer within a
// session).
RC_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
    cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t pref, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *returned) {
  if (requested <= 0 || !results || !returned)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::string key = bytesOf(handle) + bytesOf(requested);
  {
    std::lock_guard<std::mutex> lock(gMu);
    for (const void *o :
         {(const void *)op, (const void *)a, (const void *)b, (const void *)c,
          (const void *)d, (const void *)pref}) {
      auto h = gHistory.find(o);
      if (h == gHistory.end())
        return CUBLAS_STATUS_INVALID_VALUE; // not made here, or destroyed
      key += bytesOf(h->second.size()) + h->second;
    }
    auto hit = gHeuristics.find(key);
    if (hit != gHeuristics.end()) {
      std::copy(hit->second.results.begin(), hit->second.results.end(),
                results);
      *returned = hit->second.count;
      return CUBLAS_STATUS_SUCCESS;
    }
  }
  cublasStatus_t st = rc::lib::forward(
      rc::lib::rows::cublasLtMatmulAlgoGetHeuristic, kFailed, handle, op, a, b,
      c, d, pref, requested, results, returned);
  if (st == CUBLAS_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> lock(gMu);
    gHeuristics[key] = {std::vector<cublasLtMatmulHeuristicResult_t>(
                            results, results + requested),
                        *returned};
  }
  return st;
}

RC_API cublasStatus_t
cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
               const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
               const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
               const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
               cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
               void *workspace, size_t workspaceSize, cudaStream_t stream) {
  uint64_t scale = 0;
  {
    std::lock_guard<std::mutex> lock(gMu);
    auto s = gScaleBytes.find(desc);
    if (s == gScaleBytes.end())
      return CUBLAS_STATUS_INVALID_VALUE; // not a descriptor made here
    scale = s->second;
  }
  if (!alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  const rc::lib::Row *row = scale == 2    ? &rc::lib::rows::cublasLtMatmul_s2
                            : scale == 4  ? &rc::lib::rows::cublasLtMatmul_s4
                            : scale == 8  ? &rc::lib::rows::cublasLtMatmul_s8
                            : scale == 16 ? &rc::lib::rows::cublasLtMatmul_s16
                                          : nullptr;
  if (!row)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return rc::lib::forward(*row, kFailed, handle, desc, alpha, A, Adesc, B,
                          Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
                          workspaceSize, stream);
}
