// librc_cusparse: cuSPARSE served by rc-server's libcusparse
// (docs/libraries.md). Its entry points are generated from the rows of
// abi/include/rc/libcalls/cusparse.def; this is the one that needs more:
// the rows carry scalars (alpha, beta) as host memory, so the device
// pointer mode is refused, by name, until rows for it exist.
#include "lib_forward.h"

#include <cusparse.h>

extern "C" int __rc_report_unsupported(const char *call, const char *library);

namespace {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  constexpr rc::lib::Row k_##key{#key, params};
#include "rc/libcalls/cusparse.def"
#undef RC_LIB_CALL
} // namespace

extern "C" __attribute__((visibility("default"))) cusparseStatus_t
cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode) {
  if (mode == CUSPARSE_POINTER_MODE_DEVICE) {
    __rc_report_unsupported(
        "cusparseSetPointerMode(CUSPARSE_POINTER_MODE_DEVICE)", "cuSPARSE");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return rc::lib::forward(k_cusparseSetPointerMode,
                          CUSPARSE_STATUS_INTERNAL_ERROR, handle, mode);
}
