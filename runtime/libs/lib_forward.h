// The body of every served entry point of a vendor library replacement
// (docs/libraries.md). gen_unsupported_stubs.py generates one per row:
//   rc::lib::Ret<decltype(::curandSetStream)> curandSetStream(
//       rc::lib::Param<decltype(::curandSetStream), 0> a0, ...) {
//     return rc::lib::forward(rc::lib::rows::curandSetStream,
//                             <the library's failure status>, a0, a1);
//   }
// and a library's hand-written entry points (where a call needs more than
// its row) call forward() the same way. It describes each parameter
// (address, size, pointee size) for librc_cudart, which encodes the call
// by the row's tokens.
#ifndef RC_LIB_FORWARD_H
#define RC_LIB_FORWARD_H

#include "function_types.h"
#include "rc/lib_call.h"
#include "rc_lib_call_abi.h"

#include <array>
#include <cstddef>
#include <tuple>

namespace rc::lib {

// The types of a declaration (function_types.h).
using rc::Param;
using rc::Ret;

// A row's key and tokens, from its .def file.
struct Row {
  const char *key;
  const char *params;
};

template <class T> RcLibArg describe(const T &value) {
  return RcLibArg{&value, uint32_t(sizeof(T)), pointeeBytes<T>()};
}

// Where a call's scalars and results (the `i` and `o` of cuBLAS's rows)
// live: host memory, or device memory for a cuBLAS handle in
// CUBLAS_POINTER_MODE_DEVICE. Generated cuBLAS entry points ask
// scalarsOf(handle); every other object keeps them on the host.
enum class Scalars { Host, Device };
template <class T> Scalars scalarsOf(const T &) { return Scalars::Host; }

// `failure` is what the entry point returns when the call could not be
// sent or the server refused it (no server, a bad argument): the library's
// "not supported" status where it has one (gen_unsupported_stubs.py's
// table), else its internal error.
template <class R, class... A>
R forwardWith(Scalars scalars, Row row, R failure, const A &...a) {
  std::array<RcLibArg, sizeof...(A)> args = {describe(a)...};
  int status = 0;
  int flags = scalars == Scalars::Device ? RC_LIB_SCALARS_ON_DEVICE : 0;
  if (__rc_lib_call(row.key, row.params, args.data(), int(args.size()), flags,
                    &status) != 0)
    return failure;
  return R(status);
}

template <class R, class... A> R forward(Row row, R failure, const A &...a) {
  return forwardWith(Scalars::Host, row, failure, a...);
}

// Every served row as a constant: rows::curandGenerateUniform_host.
namespace rows {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  constexpr Row key{#key, params};
#include "rc/libcalls/cublas.def"
#include "rc/libcalls/cublaslt.def"
#include "rc/libcalls/curand.def"
#include "rc/libcalls/cusolver.def"
#include "rc/libcalls/cusparse.def"
#include "rc/libcalls/npp.def"
#undef RC_LIB_CALL
} // namespace rows

} // namespace rc::lib

#endif
