// Generated once from the CUDA 12.4 driver_types.h (enum cudaError) by a
// script in the runtime work; strings of common codes match cudart's wording.
#include "api/global.h"
#include "core/enum_number.h"

namespace {
struct ErrorText {
  int code;
  const char *name;
  const char *text;
};
const ErrorText kErrors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {4, "cudaErrorCudartUnloading", "driver shutting down"},
    {5, "cudaErrorProfilerDisabled", "cudaErrorProfilerDisabled"},
    {6, "cudaErrorProfilerNotInitialized", "cudaErrorProfilerNotInitialized"},
    {7, "cudaErrorProfilerAlreadyStarted", "cudaErrorProfilerAlreadyStarted"},
    {8, "cudaErrorProfilerAlreadyStopped", "cudaErrorProfilerAlreadyStopped"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {16, "cudaErrorInvalidHostPointer", "cudaErrorInvalidHostPointer"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {18, "cudaErrorInvalidTexture", "cudaErrorInvalidTexture"},
    {19, "cudaErrorInvalidTextureBinding", "cudaErrorInvalidTextureBinding"},
    {20, "cudaErrorInvalidChannelDescriptor",
     "cudaErrorInvalidChannelDescriptor"},
    {21, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {22, "cudaErrorAddressOfConstant", "cudaErrorAddressOfConstant"},
    {23, "cudaErrorTextureFetchFailed", "cudaErrorTextureFetchFailed"},
    {24, "cudaErrorTextureNotBound", "cudaErrorTextureNotBound"},
    {25, "cudaErrorSynchronizationError", "cudaErrorSynchronizationError"},
    {26, "cudaErrorInvalidFilterSetting", "cudaErrorInvalidFilterSetting"},
    {27, "cudaErrorInvalidNormSetting", "cudaErrorInvalidNormSetting"},
    {28, "cudaErrorMixedDeviceExecution", "cudaErrorMixedDeviceExecution"},
    {31, "cudaErrorNotYetImplemented", "cudaErrorNotYetImplemented"},
    {32, "cudaErrorMemoryValueTooLarge", "cudaErrorMemoryValueTooLarge"},
    {34, "cudaErrorStubLibrary", "cudaErrorStubLibrary"},
    {35, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {36, "cudaErrorCallRequiresNewerDriver",
     "cudaErrorCallRequiresNewerDriver"},
    {37, "cudaErrorInvalidSurface", "cudaErrorInvalidSurface"},
    {43, "cudaErrorDuplicateVariableName", "cudaErrorDuplicateVariableName"},
    {44, "cudaErrorDuplicateTextureName", "cudaErrorDuplicateTextureName"},
    {45, "cudaErrorDuplicateSurfaceName", "cudaErrorDuplicateSurfaceName"},
    {46, "cudaErrorDevicesUnavailable",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {49, "cudaErrorIncompatibleDriverContext",
     "cudaErrorIncompatibleDriverContext"},
    {52, "cudaErrorMissingConfiguration", "cudaErrorMissingConfiguration"},
    {53, "cudaErrorPriorLaunchFailure", "cudaErrorPriorLaunchFailure"},
    {65, "cudaErrorLaunchMaxDepthExceeded", "cudaErrorLaunchMaxDepthExceeded"},
    {66, "cudaErrorLaunchFileScopedTex", "cudaErrorLaunchFileScopedTex"},
    {67, "cudaErrorLaunchFileScopedSurf", "cudaErrorLaunchFileScopedSurf"},
    {68, "cudaErrorSyncDepthExceeded", "cudaErrorSyncDepthExceeded"},
    {69, "cudaErrorLaunchPendingCountExceeded",
     "cudaErrorLaunchPendingCountExceeded"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {102, "cudaErrorDeviceNotLicensed", "cudaErrorDeviceNotLicensed"},
    {103, "cudaErrorSoftwareValidityNotEstablished",
     "cudaErrorSoftwareValidityNotEstablished"},
    {127, "cudaErrorStartupFailure", "cudaErrorStartupFailure"},
    {200, "cudaErrorInvalidKernelImage", "cudaErrorInvalidKernelImage"},
    {201, "cudaErrorDeviceUninitialized", "cudaErrorDeviceUninitialized"},
    {205, "cudaErrorMapBufferObjectFailed", "cudaErrorMapBufferObjectFailed"},
    {206, "cudaErrorUnmapBufferObjectFailed",
     "cudaErrorUnmapBufferObjectFailed"},
    {207, "cudaErrorArrayIsMapped", "cudaErrorArrayIsMapped"},
    {208, "cudaErrorAlreadyMapped", "cudaErrorAlreadyMapped"},
    {209, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {210, "cudaErrorAlreadyAcquired", "cudaErrorAlreadyAcquired"},
    {211, "cudaErrorNotMapped", "cudaErrorNotMapped"},
    {212, "cudaErrorNotMappedAsArray", "cudaErrorNotMappedAsArray"},
    {213, "cudaErrorNotMappedAsPointer", "cudaErrorNotMappedAsPointer"},
    {214, "cudaErrorECCUncorrectable", "cudaErrorECCUncorrectable"},
    {215, "cudaErrorUnsupportedLimit", "cudaErrorUnsupportedLimit"},
    {216, "cudaErrorDeviceAlreadyInUse", "cudaErrorDeviceAlreadyInUse"},
    {217, "cudaErrorPeerAccessUnsupported", "cudaErrorPeerAccessUnsupported"},
    {218, "cudaErrorInvalidPtx", "cudaErrorInvalidPtx"},
    {219, "cudaErrorInvalidGraphicsContext", "cudaErrorInvalidGraphicsContext"},
    {220, "cudaErrorNvlinkUncorrectable", "cudaErrorNvlinkUncorrectable"},
    {221, "cudaErrorJitCompilerNotFound", "cudaErrorJitCompilerNotFound"},
    {222, "cudaErrorUnsupportedPtxVersion", "cudaErrorUnsupportedPtxVersion"},
    {223, "cudaErrorJitCompilationDisabled", "cudaErrorJitCompilationDisabled"},
    {224, "cudaErrorUnsupportedExecAffinity",
     "cudaErrorUnsupportedExecAffinity"},
    {225, "cudaErrorUnsupportedDevSideSync", "cudaErrorUnsupportedDevSideSync"},
    {300, "cudaErrorInvalidSource", "cudaErrorInvalidSource"},
    {301, "cudaErrorFileNotFound", "cudaErrorFileNotFound"},
    {302, "cudaErrorSharedObjectSymbolNotFound",
     "cudaErrorSharedObjectSymbolNotFound"},
    {303, "cudaErrorSharedObjectInitFailed", "cudaErrorSharedObjectInitFailed"},
    {304, "cudaErrorOperatingSystem", "cudaErrorOperatingSystem"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {401, "cudaErrorIllegalState", "cudaErrorIllegalState"},
    {402, "cudaErrorLossyQuery", "cudaErrorLossyQuery"},
    {500, "cudaErrorSymbolNotFound", "cudaErrorSymbolNotFound"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {703, "cudaErrorLaunchIncompatibleTexturing",
     "cudaErrorLaunchIncompatibleTexturing"},
    {704, "cudaErrorPeerAccessAlreadyEnabled",
     "cudaErrorPeerAccessAlreadyEnabled"},
    {705, "cudaErrorPeerAccessNotEnabled", "cudaErrorPeerAccessNotEnabled"},
    {708, "cudaErrorSetOnActiveProcess", "cudaErrorSetOnActiveProcess"},
    {709, "cudaErrorContextIsDestroyed", "cudaErrorContextIsDestroyed"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {711, "cudaErrorTooManyPeers", "cudaErrorTooManyPeers"},
    {712, "cudaErrorHostMemoryAlreadyRegistered",
     "cudaErrorHostMemoryAlreadyRegistered"},
    {713, "cudaErrorHostMemoryNotRegistered",
     "cudaErrorHostMemoryNotRegistered"},
    {714, "cudaErrorHardwareStackError", "cudaErrorHardwareStackError"},
    {715, "cudaErrorIllegalInstruction",
     "an illegal instruction was encountered"},
    {716, "cudaErrorMisalignedAddress", "misaligned address"},
    {717, "cudaErrorInvalidAddressSpace", "cudaErrorInvalidAddressSpace"},
    {718, "cudaErrorInvalidPc", "cudaErrorInvalidPc"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge",
     "cudaErrorCooperativeLaunchTooLarge"},
    {800, "cudaErrorNotPermitted", "operation not permitted"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {802, "cudaErrorSystemNotReady", "cudaErrorSystemNotReady"},
    {803, "cudaErrorSystemDriverMismatch", "cudaErrorSystemDriverMismatch"},
    {804, "cudaErrorCompatNotSupportedOnDevice",
     "cudaErrorCompatNotSupportedOnDevice"},
    {805, "cudaErrorMpsConnectionFailed", "cudaErrorMpsConnectionFailed"},
    {806, "cudaErrorMpsRpcFailure", "cudaErrorMpsRpcFailure"},
    {807, "cudaErrorMpsServerNotReady", "cudaErrorMpsServerNotReady"},
    {808, "cudaErrorMpsMaxClientsReached", "cudaErrorMpsMaxClientsReached"},
    {809, "cudaErrorMpsMaxConnectionsReached",
     "cudaErrorMpsMaxConnectionsReached"},
    {810, "cudaErrorMpsClientTerminated", "cudaErrorMpsClientTerminated"},
    {811, "cudaErrorCdpNotSupported", "cudaErrorCdpNotSupported"},
    {812, "cudaErrorCdpVersionMismatch", "cudaErrorCdpVersionMismatch"},
    {900, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {901, "cudaErrorStreamCaptureInvalidated",
     "cudaErrorStreamCaptureInvalidated"},
    {902, "cudaErrorStreamCaptureMerge", "cudaErrorStreamCaptureMerge"},
    {903, "cudaErrorStreamCaptureUnmatched", "cudaErrorStreamCaptureUnmatched"},
    {904, "cudaErrorStreamCaptureUnjoined", "cudaErrorStreamCaptureUnjoined"},
    {905, "cudaErrorStreamCaptureIsolation", "cudaErrorStreamCaptureIsolation"},
    {906, "cudaErrorStreamCaptureImplicit", "cudaErrorStreamCaptureImplicit"},
    {907, "cudaErrorCapturedEvent", "cudaErrorCapturedEvent"},
    {908, "cudaErrorStreamCaptureWrongThread",
     "cudaErrorStreamCaptureWrongThread"},
    {909, "cudaErrorTimeout", "cudaErrorTimeout"},
    {910, "cudaErrorGraphExecUpdateFailure", "cudaErrorGraphExecUpdateFailure"},
    {911, "cudaErrorExternalDevice", "cudaErrorExternalDevice"},
    {912, "cudaErrorInvalidClusterSize", "cudaErrorInvalidClusterSize"},
    {999, "cudaErrorUnknown", "unknown error"},
    {10000, "cudaErrorApiFailureBase", "cudaErrorApiFailureBase"},
};

const ErrorText *find(int code) {
  for (const ErrorText &t : kErrors)
    if (t.code == code)
      return &t;
  return nullptr;
}
} // namespace

namespace rc::rt {
cudaError_t errorFromWire(int32_t code) {
  return find(code) ? cudaError_t(code) : cudaErrorUnknown;
}
} // namespace rc::rt

extern "C" {

// Programs pass any number (the driver's CUresult, their own codes): it
// is read as one, not as a cudaError_t it may not be.
const char *cudaGetErrorName(cudaError_t e) {
  const ErrorText *t = find(rc::rt::enumNumber(e));
  return t ? t->name : "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e) {
  const ErrorText *t = find(rc::rt::enumNumber(e));
  return t ? t->text : "unrecognized error code";
}

} // extern "C"
