// cudaError_t numbers the server reports on the wire (Error.code,
// Result.code). The client returns them to the application unchanged, so
// they must be the runtime API's numbering, not the driver's.
#ifndef RC_SERVER_ERRORS_H
#define RC_SERVER_ERRORS_H

namespace rc::server {

enum CudaError : int {
  kSuccess = 0,
  kErrInvalidValue = 1,
  kErrMemoryAllocation = 2,
  kErrInitialization = 3,
  kErrInvalidConfiguration = 9,
  kErrInvalidPitchValue = 12,
  kErrInvalidSymbol = 13,
  kErrInvalidChannelDescriptor = 20,
  kErrInvalidDeviceFunction = 98,
  kErrInvalidKernelImage = 200,
  kErrNoDevice = 100,
  kErrInvalidDevice = 101,
  kErrPeerAccessUnsupported = 217,
  kErrInvalidResourceHandle = 400,
  kErrSymbolNotFound = 500,
  kErrNotReady = 600,
  kErrIllegalAddress = 700,
  kErrLaunchFailure = 719,
  kErrNotSupported = 801,
  kErrInvalidClusterSize = 912,
  kErrUnknown = 999,
};

// CUresult -> cudaError_t. Since CUDA 10 the two enums share numbers; a
// script comparing cuda.h with driver_types.h (CUDA 13.0) found only
// CUDA_ERROR_CONTEXT_ALREADY_CURRENT (202) and CUDA_ERROR_KEY_ROTATION (916)
// without a runtime counterpart.
int cudaErrorFromCuResult(int cuResult);

// Errors after which CUDA considers the context unusable: every later call
// fails with the same code, so the server reports it on every later batch.
bool isStickyError(int cudaError);

} // namespace rc::server

#endif
