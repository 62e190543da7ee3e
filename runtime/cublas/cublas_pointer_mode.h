// Where the scalars and results of a call on a cuBLAS handle live: what
// cublasSetPointerMode_v2 last set for it (rc_cublas.cpp keeps it). The
// generated entry points of cuBLAS's rows (gen_unsupported_stubs.py) ask
// it, and forward `i` and `o` parameters as device memory under
// CUBLAS_POINTER_MODE_DEVICE (rc/lib_call.h, scalarsOnDevice).
#ifndef RC_CUBLAS_POINTER_MODE_H
#define RC_CUBLAS_POINTER_MODE_H

#include "lib_forward.h"

#include <cublas_v2.h>

namespace rc::lib {

// Host for a handle that is not live: the call then fails on its handle.
Scalars scalarsOf(cublasHandle_t handle);

} // namespace rc::lib

#endif
