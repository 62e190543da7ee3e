// The legacy cuBLAS API of cublas.h (cublasInit, cublasSgemm without a
// handle, errors kept for cublasGetError): each call maps onto the served
// v2 call through one implicit handle, which cublasInit creates and
// cublasShutdown destroys (docs/cublas.md, "Legacy API"). Scalars come by
// value and results go back by value, so the handle keeps host pointer
// mode. A failing call records its status for cublasGetError instead of
// returning it; a call before cublasInit records CUBLAS_STATUS_NOT_INITIALIZED,
// as NVIDIA's library does. The legacy routines whose v2 counterparts are
// not served are stubs that fail by name (runtime/gen_unsupported_stubs.py).
#ifndef RC_CUBLAS_LEGACY_H
#define RC_CUBLAS_LEGACY_H

#include <cublas.h>

namespace rc::cublas_legacy {

// The implicit handle, or nullptr before cublasInit (cublasGetError then
// answers CUBLAS_STATUS_NOT_INITIALIZED).
cublasHandle_t implicitHandle();

// Keeps a failure for cublasGetError; a success leaves the last error.
void record(cublasStatus_t status);

// The legacy API's one-letter options, read as cuBLAS reads them (either
// case); a letter it does not know makes the call CUBLAS_STATUS_INVALID_VALUE.
class Letters {
public:
  cublasOperation_t operation(char c);
  cublasFillMode_t fill(char c);
  cublasDiagType_t diagonal(char c);
  cublasSideMode_t side(char c);
  bool invalid() const { return invalid_; }

private:
  bool invalid_ = false;
};

// Runs `v2(handle)` with the implicit handle, recording its failure.
template <typename Call> void call(const Letters &letters, Call v2) {
  cublasHandle_t handle = implicitHandle();
  if (!handle)
    return;
  if (letters.invalid()) {
    record(CUBLAS_STATUS_INVALID_VALUE);
    return;
  }
  record(v2(handle));
}

template <typename Call> void call(Call v2) { call(Letters(), v2); }

// A routine with a result: `v2(handle, &result)`; zero after a failure.
template <typename T, typename Call> T result(Call v2) {
  T value{};
  cublasHandle_t handle = implicitHandle();
  if (!handle)
    return value;
  cublasStatus_t status = v2(handle, &value);
  record(status);
  return status == CUBLAS_STATUS_SUCCESS ? value : T{};
}

} // namespace rc::cublas_legacy

#endif
