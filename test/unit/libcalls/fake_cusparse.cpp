// A stand-in for libcusparse.so.12 on the host test device: the legacy
// matrix descriptors alone, which cuSOLVER's sparse calls take
// (fake_cusolver.cpp).
#include <cusparse.h>

struct cusparseMatDescr {
  int unused;
};

extern "C" {

cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *d) {
  *d = new cusparseMatDescr{};
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t d) {
  delete d;
  return CUSPARSE_STATUS_SUCCESS;
}

} // extern "C"
