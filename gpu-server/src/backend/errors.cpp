#include "rc/server/errors.h"

namespace rc::server {

int cudaErrorFromCuResult(int cuResult) {
  switch (cuResult) {
  case 202: // CUDA_ERROR_CONTEXT_ALREADY_CURRENT: deprecated, no runtime code
  case 916: // CUDA_ERROR_KEY_ROTATION
    return kErrUnknown;
  default:
    return cuResult < 0 ? kErrUnknown : cuResult;
  }
}

bool isStickyError(int e) {
  switch (e) {
  case 700: // illegal address
  case 710: // device-side assert
  case 714: // hardware stack error
  case 715: // illegal instruction
  case 716: // misaligned address
  case 717: // invalid address space
  case 718: // invalid pc
  case 719: // launch failure
    return true;
  default:
    return false;
  }
}

} // namespace rc::server
