// librc_cudart's side of the vendor library ABI (rc_lib_call_abi.h): every
// served call of librc_curand and its kind reaches the connection here.
#include "api/global.h"
#include "rc_lib_call_abi.h"

extern "C" int __rc_lib_call(const char *key, const char *params,
                             const RcLibArg *args, int count, int flags,
                             int *status) {
  return rc::rt::runtime().libraries().libraryCall(
      key, params, args, count, (flags & RC_LIB_SCALARS_ON_DEVICE) != 0,
      status);
}
