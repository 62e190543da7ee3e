// The body of every served entry point of a vendor library replacement
// (docs/libraries.md):
//   curandStatus_t curandGenerateUniform(curandGenerator_t g, float *p,
//                                        size_t n) {
//     return rc::lib::forward(RC_LIB_ROW(curandGenerateUniform),
//                             CURAND_STATUS_INTERNAL_ERROR, g, p, n);
//   }
// describes each parameter (address, size, pointee size) for librc_cudart,
// which encodes the call by the row's tokens.
#ifndef RC_LIB_FORWARD_H
#define RC_LIB_FORWARD_H

#include "rc/lib_call.h"
#include "rc_lib_call_abi.h"

#include <array>

namespace rc::lib {

// A row's key and tokens, from its .def file.
struct Row {
  const char *key;
  const char *params;
};

template <class T> RcLibArg describe(const T &value) {
  return RcLibArg{&value, uint32_t(sizeof(T)), pointeeBytes<T>()};
}

// `failure` is what the entry point returns when the call could not be
// sent (no server, a refused argument): the library's internal error.
template <class R, class... A> R forward(Row row, R failure, const A &...a) {
  std::array<RcLibArg, sizeof...(A)> args = {describe(a)...};
  int status = 0;
  if (__rc_lib_call(row.key, row.params, args.data(), int(args.size()),
                    &status) != 0)
    return failure;
  return R(status);
}

} // namespace rc::lib

#endif
