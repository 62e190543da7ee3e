// librc_cusparse: cuSPARSE served by rc-server's libcusparse
// (docs/libraries.md). Its entry points are generated from the rows of
// abi/include/rc/libcalls/cusparse.def; these are the ones that need more:
// the rows carry scalars (alpha, beta) as host memory, so the device
// pointer mode is refused, by name, until rows for it exist; and a legacy
// matrix descriptor's getters, which return values, not statuses, are
// answered here from what the program set (no round trip).
#include "lib_forward.h"

#include <cusparse.h>

#include <map>
#include <mutex>

extern "C" int __rc_report_unsupported(const char *call, const char *library);

namespace {
constexpr cusparseStatus_t kFailed = CUSPARSE_STATUS_INTERNAL_ERROR;

// What a descriptor was set to; cuSPARSE's defaults until then.
struct MatDescr {
  cusparseMatrixType_t type = CUSPARSE_MATRIX_TYPE_GENERAL;
  cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  cusparseIndexBase_t base = CUSPARSE_INDEX_BASE_ZERO;
};
std::mutex gMu;
std::map<const void *, MatDescr> gDescrs;

// Sets a field of `d`'s record once the server took the same setting.
template <class F>
cusparseStatus_t setField(cusparseStatus_t st, const void *d, F set) {
  if (st == CUSPARSE_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> lock(gMu);
    set(gDescrs[d]);
  }
  return st;
}

MatDescr fieldsOf(const void *d) {
  std::lock_guard<std::mutex> lock(gMu);
  auto it = gDescrs.find(d);
  return it == gDescrs.end() ? MatDescr{} : it->second;
}
} // namespace

#define RC_API extern "C" __attribute__((visibility("default")))

RC_API cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *d) {
  cusparseStatus_t st =
      rc::lib::forward(rc::lib::rows::cusparseCreateMatDescr, kFailed, d);
  return setField(st, st == CUSPARSE_STATUS_SUCCESS ? *d : nullptr,
                  [](MatDescr &m) { m = MatDescr{}; });
}

RC_API cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t d) {
  {
    std::lock_guard<std::mutex> lock(gMu);
    gDescrs.erase(d);
  }
  return rc::lib::forward(rc::lib::rows::cusparseDestroyMatDescr, kFailed, d);
}

RC_API cusparseStatus_t cusparseSetMatType(cusparseMatDescr_t d,
                                           cusparseMatrixType_t type) {
  return setField(
      rc::lib::forward(rc::lib::rows::cusparseSetMatType, kFailed, d, type), d,
      [&](MatDescr &m) { m.type = type; });
}

RC_API cusparseStatus_t cusparseSetMatFillMode(cusparseMatDescr_t d,
                                               cusparseFillMode_t fill) {
  return setField(
      rc::lib::forward(rc::lib::rows::cusparseSetMatFillMode, kFailed, d, fill),
      d, [&](MatDescr &m) { m.fill = fill; });
}

RC_API cusparseStatus_t cusparseSetMatDiagType(cusparseMatDescr_t d,
                                               cusparseDiagType_t diag) {
  return setField(
      rc::lib::forward(rc::lib::rows::cusparseSetMatDiagType, kFailed, d, diag),
      d, [&](MatDescr &m) { m.diag = diag; });
}

RC_API cusparseStatus_t cusparseSetMatIndexBase(cusparseMatDescr_t d,
                                                cusparseIndexBase_t base) {
  return setField(rc::lib::forward(rc::lib::rows::cusparseSetMatIndexBase,
                                   kFailed, d, base),
                  d, [&](MatDescr &m) { m.base = base; });
}

RC_API cusparseMatrixType_t cusparseGetMatType(const cusparseMatDescr_t d) {
  return fieldsOf(d).type;
}

RC_API cusparseFillMode_t cusparseGetMatFillMode(const cusparseMatDescr_t d) {
  return fieldsOf(d).fill;
}

RC_API cusparseDiagType_t cusparseGetMatDiagType(const cusparseMatDescr_t d) {
  return fieldsOf(d).diag;
}

RC_API cusparseIndexBase_t cusparseGetMatIndexBase(const cusparseMatDescr_t d) {
  return fieldsOf(d).base;
}

RC_API cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle,
                                               cusparsePointerMode_t mode) {
  if (mode == CUSPARSE_POINTER_MODE_DEVICE) {
    __rc_report_unsupported(
        "cusparseSetPointerMode(CUSPARSE_POINTER_MODE_DEVICE)", "cuSPARSE");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return rc::lib::forward(rc::lib::rows::cusparseSetPointerMode, kFailed,
                          handle, mode);
}
