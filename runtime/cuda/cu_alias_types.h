// The driver API's names for what the runtime API names otherwise: enums
// with the same numbering and structs with the same layout. Each is proven
// here, enumerator by enumerator and field by field, so that the driver
// calls of runtime/coverage/aliases.txt may hand their arguments to the
// runtime calls they alias (api/alias_call.h); a type not proven here
// makes an alias that uses it fail to compile.
#ifndef RC_CUDA_CU_ALIAS_TYPES_H
#define RC_CUDA_CU_ALIAS_TYPES_H

#include "api/alias_call.h"
#include "cu_result.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace rc::alias {

// The driver's result of a runtime call.
template <> struct ResultAs<CUresult, cudaError_t> {
  static CUresult from(cudaError_t e) { return rc::cu::fromRuntime(e); }
};

#define RC_SAME_AS(Driver, Runtime)                                            \
  template <> struct SameAs<Driver, Runtime> : std::true_type {                \
    static_assert(sizeof(Driver) == sizeof(Runtime));                          \
  }
#define RC_SAME_VALUE(a, b) static_assert(int(a) == int(b), #a " is not " #b)
#define RC_SAME_FIELDS(D, df, R, rf)                                           \
  static_assert(offsetof(D, df) == offsetof(R, rf) &&                          \
                    sizeof(D::df) == sizeof(R::rf),                            \
                #D "::" #df " lies elsewhere")
#define RC_SAME_FIELD(D, R, f) RC_SAME_FIELDS(D, f, R, f)

// ---- enums --------------------------------------------------------------

RC_SAME_AS(CUfunc_cache, cudaFuncCache);
RC_SAME_VALUE(CU_FUNC_CACHE_PREFER_NONE, cudaFuncCachePreferNone);
RC_SAME_VALUE(CU_FUNC_CACHE_PREFER_SHARED, cudaFuncCachePreferShared);
RC_SAME_VALUE(CU_FUNC_CACHE_PREFER_L1, cudaFuncCachePreferL1);
RC_SAME_VALUE(CU_FUNC_CACHE_PREFER_EQUAL, cudaFuncCachePreferEqual);

RC_SAME_AS(CUsharedconfig, cudaSharedMemConfig);
RC_SAME_VALUE(CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE,
              cudaSharedMemBankSizeDefault);
RC_SAME_VALUE(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE,
              cudaSharedMemBankSizeFourByte);
RC_SAME_VALUE(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE,
              cudaSharedMemBankSizeEightByte);

RC_SAME_AS(CUstreamCaptureMode, cudaStreamCaptureMode);
RC_SAME_VALUE(CU_STREAM_CAPTURE_MODE_GLOBAL, cudaStreamCaptureModeGlobal);
RC_SAME_VALUE(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
              cudaStreamCaptureModeThreadLocal);
RC_SAME_VALUE(CU_STREAM_CAPTURE_MODE_RELAXED, cudaStreamCaptureModeRelaxed);

RC_SAME_AS(CUstreamCaptureStatus, cudaStreamCaptureStatus);
RC_SAME_VALUE(CU_STREAM_CAPTURE_STATUS_NONE, cudaStreamCaptureStatusNone);
RC_SAME_VALUE(CU_STREAM_CAPTURE_STATUS_ACTIVE, cudaStreamCaptureStatusActive);
RC_SAME_VALUE(CU_STREAM_CAPTURE_STATUS_INVALIDATED,
              cudaStreamCaptureStatusInvalidated);

RC_SAME_AS(CUmem_advise, cudaMemoryAdvise);
RC_SAME_VALUE(CU_MEM_ADVISE_SET_READ_MOSTLY, cudaMemAdviseSetReadMostly);
RC_SAME_VALUE(CU_MEM_ADVISE_UNSET_READ_MOSTLY, cudaMemAdviseUnsetReadMostly);
RC_SAME_VALUE(CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
              cudaMemAdviseSetPreferredLocation);
RC_SAME_VALUE(CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
              cudaMemAdviseUnsetPreferredLocation);
RC_SAME_VALUE(CU_MEM_ADVISE_SET_ACCESSED_BY, cudaMemAdviseSetAccessedBy);
RC_SAME_VALUE(CU_MEM_ADVISE_UNSET_ACCESSED_BY, cudaMemAdviseUnsetAccessedBy);

RC_SAME_AS(CUmem_range_attribute, cudaMemRangeAttribute);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
              cudaMemRangeAttributeReadMostly);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
              cudaMemRangeAttributePreferredLocation);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
              cudaMemRangeAttributeAccessedBy);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
              cudaMemRangeAttributeLastPrefetchLocation);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
              cudaMemRangeAttributePreferredLocationType);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
              cudaMemRangeAttributePreferredLocationId);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
              cudaMemRangeAttributeLastPrefetchLocationType);
RC_SAME_VALUE(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
              cudaMemRangeAttributeLastPrefetchLocationId);

RC_SAME_AS(CUmemLocationType, cudaMemLocationType);
RC_SAME_VALUE(CU_MEM_LOCATION_TYPE_INVALID, cudaMemLocationTypeInvalid);
RC_SAME_VALUE(CU_MEM_LOCATION_TYPE_DEVICE, cudaMemLocationTypeDevice);
RC_SAME_VALUE(CU_MEM_LOCATION_TYPE_HOST, cudaMemLocationTypeHost);
RC_SAME_VALUE(CU_MEM_LOCATION_TYPE_HOST_NUMA, cudaMemLocationTypeHostNuma);
RC_SAME_VALUE(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
              cudaMemLocationTypeHostNumaCurrent);

RC_SAME_AS(CUmemAccess_flags, cudaMemAccessFlags);
RC_SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_NONE, cudaMemAccessFlagsProtNone);
RC_SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READ, cudaMemAccessFlagsProtRead);
RC_SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
              cudaMemAccessFlagsProtReadWrite);

RC_SAME_AS(CUmemAllocationType, cudaMemAllocationType);
RC_SAME_VALUE(CU_MEM_ALLOCATION_TYPE_INVALID, cudaMemAllocationTypeInvalid);
RC_SAME_VALUE(CU_MEM_ALLOCATION_TYPE_PINNED, cudaMemAllocationTypePinned);

RC_SAME_AS(CUmemAllocationHandleType, cudaMemAllocationHandleType);
RC_SAME_VALUE(CU_MEM_HANDLE_TYPE_NONE, cudaMemHandleTypeNone);
RC_SAME_VALUE(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
              cudaMemHandleTypePosixFileDescriptor);
RC_SAME_VALUE(CU_MEM_HANDLE_TYPE_WIN32, cudaMemHandleTypeWin32);
RC_SAME_VALUE(CU_MEM_HANDLE_TYPE_WIN32_KMT, cudaMemHandleTypeWin32Kmt);
RC_SAME_VALUE(CU_MEM_HANDLE_TYPE_FABRIC, cudaMemHandleTypeFabric);

RC_SAME_AS(CUmemPool_attribute, cudaMemPoolAttr);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES,
              cudaMemPoolReuseFollowEventDependencies);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
              cudaMemPoolReuseAllowOpportunistic);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES,
              cudaMemPoolReuseAllowInternalDependencies);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
              cudaMemPoolAttrReleaseThreshold);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
              cudaMemPoolAttrReservedMemCurrent);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
              cudaMemPoolAttrReservedMemHigh);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_USED_MEM_CURRENT, cudaMemPoolAttrUsedMemCurrent);
RC_SAME_VALUE(CU_MEMPOOL_ATTR_USED_MEM_HIGH, cudaMemPoolAttrUsedMemHigh);

RC_SAME_AS(CUgraphMem_attribute, cudaGraphMemAttributeType);
RC_SAME_VALUE(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
              cudaGraphMemAttrUsedMemCurrent);
RC_SAME_VALUE(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, cudaGraphMemAttrUsedMemHigh);
RC_SAME_VALUE(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT,
              cudaGraphMemAttrReservedMemCurrent);
RC_SAME_VALUE(CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
              cudaGraphMemAttrReservedMemHigh);

// The runtime has no batch memory operation node (12): graphs of the
// runtime never hold one, so the runtime never answers it.
RC_SAME_AS(CUgraphNodeType, cudaGraphNodeType);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_KERNEL, cudaGraphNodeTypeKernel);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_MEMCPY, cudaGraphNodeTypeMemcpy);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_MEMSET, cudaGraphNodeTypeMemset);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_HOST, cudaGraphNodeTypeHost);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_GRAPH, cudaGraphNodeTypeGraph);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_EMPTY, cudaGraphNodeTypeEmpty);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_WAIT_EVENT, cudaGraphNodeTypeWaitEvent);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_EVENT_RECORD, cudaGraphNodeTypeEventRecord);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL,
              cudaGraphNodeTypeExtSemaphoreSignal);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT,
              cudaGraphNodeTypeExtSemaphoreWait);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_MEM_ALLOC, cudaGraphNodeTypeMemAlloc);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_MEM_FREE, cudaGraphNodeTypeMemFree);
RC_SAME_VALUE(CU_GRAPH_NODE_TYPE_CONDITIONAL, cudaGraphNodeTypeConditional);

RC_SAME_AS(CUgraphExecUpdateResult, cudaGraphExecUpdateResult);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_SUCCESS, cudaGraphExecUpdateSuccess);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR, cudaGraphExecUpdateError);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED,
              cudaGraphExecUpdateErrorTopologyChanged);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED,
              cudaGraphExecUpdateErrorNodeTypeChanged);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED,
              cudaGraphExecUpdateErrorFunctionChanged);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED,
              cudaGraphExecUpdateErrorParametersChanged);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED,
              cudaGraphExecUpdateErrorNotSupported);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE,
              cudaGraphExecUpdateErrorUnsupportedFunctionChange);
RC_SAME_VALUE(CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED,
              cudaGraphExecUpdateErrorAttributesChanged);

RC_SAME_AS(CUdevice_P2PAttribute, cudaDeviceP2PAttr);
RC_SAME_VALUE(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
              cudaDevP2PAttrPerformanceRank);
RC_SAME_VALUE(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
              cudaDevP2PAttrAccessSupported);
RC_SAME_VALUE(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
              cudaDevP2PAttrNativeAtomicSupported);
RC_SAME_VALUE(CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED,
              cudaDevP2PAttrCudaArrayAccessSupported);

// A stream attribute is a launch attribute in both APIs.
RC_SAME_AS(CUlaunchAttributeID, cudaLaunchAttributeID);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_IGNORE, cudaLaunchAttributeIgnore);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW,
              cudaLaunchAttributeAccessPolicyWindow);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_COOPERATIVE, cudaLaunchAttributeCooperative);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY,
              cudaLaunchAttributeSynchronizationPolicy);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
              cudaLaunchAttributeClusterDimension);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
              cudaLaunchAttributeClusterSchedulingPolicyPreference);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
              cudaLaunchAttributeProgrammaticStreamSerialization);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT,
              cudaLaunchAttributeProgrammaticEvent);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_PRIORITY, cudaLaunchAttributePriority);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP,
              cudaLaunchAttributeMemSyncDomainMap);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN,
              cudaLaunchAttributeMemSyncDomain);
RC_SAME_VALUE(CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT,
              cudaLaunchAttributeLaunchCompletionEvent);

// ---- structs and unions -------------------------------------------------

RC_SAME_AS(CUlaunchAttributeValue, cudaLaunchAttributeValue);
RC_SAME_FIELD(CUlaunchAttributeValue, cudaLaunchAttributeValue,
              accessPolicyWindow);
RC_SAME_FIELD(CUlaunchAttributeValue, cudaLaunchAttributeValue, cooperative);
RC_SAME_FIELD(CUlaunchAttributeValue, cudaLaunchAttributeValue, syncPolicy);
RC_SAME_FIELD(CUlaunchAttributeValue, cudaLaunchAttributeValue, priority);
RC_SAME_FIELD(CUlaunchAttributeValue, cudaLaunchAttributeValue,
              memSyncDomainMap);
RC_SAME_FIELD(CUlaunchAttributeValue, cudaLaunchAttributeValue, memSyncDomain);
RC_SAME_FIELD(CUaccessPolicyWindow, cudaAccessPolicyWindow, base_ptr);
RC_SAME_FIELD(CUaccessPolicyWindow, cudaAccessPolicyWindow, num_bytes);
RC_SAME_FIELD(CUaccessPolicyWindow, cudaAccessPolicyWindow, hitRatio);
RC_SAME_FIELD(CUaccessPolicyWindow, cudaAccessPolicyWindow, hitProp);
RC_SAME_FIELD(CUaccessPolicyWindow, cudaAccessPolicyWindow, missProp);
RC_SAME_VALUE(CU_ACCESS_PROPERTY_NORMAL, cudaAccessPropertyNormal);
RC_SAME_VALUE(CU_ACCESS_PROPERTY_STREAMING, cudaAccessPropertyStreaming);
RC_SAME_VALUE(CU_ACCESS_PROPERTY_PERSISTING, cudaAccessPropertyPersisting);
RC_SAME_VALUE(CU_SYNC_POLICY_AUTO, cudaSyncPolicyAuto);
RC_SAME_VALUE(CU_SYNC_POLICY_SPIN, cudaSyncPolicySpin);
RC_SAME_VALUE(CU_SYNC_POLICY_YIELD, cudaSyncPolicyYield);
RC_SAME_VALUE(CU_SYNC_POLICY_BLOCKING_SYNC, cudaSyncPolicyBlockingSync);

RC_SAME_AS(CUmemLocation, cudaMemLocation);
RC_SAME_FIELD(CUmemLocation, cudaMemLocation, type);
RC_SAME_FIELD(CUmemLocation, cudaMemLocation, id);

RC_SAME_AS(CUmemAccessDesc, cudaMemAccessDesc);
RC_SAME_FIELD(CUmemAccessDesc, cudaMemAccessDesc, location);
RC_SAME_FIELD(CUmemAccessDesc, cudaMemAccessDesc, flags);

RC_SAME_AS(CUmemPoolProps, cudaMemPoolProps);
RC_SAME_FIELD(CUmemPoolProps, cudaMemPoolProps, allocType);
RC_SAME_FIELD(CUmemPoolProps, cudaMemPoolProps, handleTypes);
RC_SAME_FIELD(CUmemPoolProps, cudaMemPoolProps, location);
RC_SAME_FIELD(CUmemPoolProps, cudaMemPoolProps, win32SecurityAttributes);
RC_SAME_FIELD(CUmemPoolProps, cudaMemPoolProps, maxSize);

RC_SAME_AS(CUDA_MEM_ALLOC_NODE_PARAMS, cudaMemAllocNodeParams);
RC_SAME_FIELD(CUDA_MEM_ALLOC_NODE_PARAMS, cudaMemAllocNodeParams, poolProps);
RC_SAME_FIELD(CUDA_MEM_ALLOC_NODE_PARAMS, cudaMemAllocNodeParams, accessDescs);
RC_SAME_FIELD(CUDA_MEM_ALLOC_NODE_PARAMS, cudaMemAllocNodeParams,
              accessDescCount);
RC_SAME_FIELD(CUDA_MEM_ALLOC_NODE_PARAMS, cudaMemAllocNodeParams, bytesize);
RC_SAME_FIELD(CUDA_MEM_ALLOC_NODE_PARAMS, cudaMemAllocNodeParams, dptr);

RC_SAME_AS(CUDA_MEMSET_NODE_PARAMS, cudaMemsetParams);
RC_SAME_FIELD(CUDA_MEMSET_NODE_PARAMS, cudaMemsetParams, dst);
RC_SAME_FIELD(CUDA_MEMSET_NODE_PARAMS, cudaMemsetParams, pitch);
RC_SAME_FIELD(CUDA_MEMSET_NODE_PARAMS, cudaMemsetParams, value);
RC_SAME_FIELD(CUDA_MEMSET_NODE_PARAMS, cudaMemsetParams, elementSize);
RC_SAME_FIELD(CUDA_MEMSET_NODE_PARAMS, cudaMemsetParams, width);
RC_SAME_FIELD(CUDA_MEMSET_NODE_PARAMS, cudaMemsetParams, height);

RC_SAME_AS(CUDA_HOST_NODE_PARAMS, cudaHostNodeParams);
RC_SAME_FIELD(CUDA_HOST_NODE_PARAMS, cudaHostNodeParams, fn);
RC_SAME_FIELD(CUDA_HOST_NODE_PARAMS, cudaHostNodeParams, userData);

RC_SAME_AS(CUgraphExecUpdateResultInfo, cudaGraphExecUpdateResultInfo);
RC_SAME_FIELD(CUgraphExecUpdateResultInfo, cudaGraphExecUpdateResultInfo,
              result);
RC_SAME_FIELD(CUgraphExecUpdateResultInfo, cudaGraphExecUpdateResultInfo,
              errorNode);
RC_SAME_FIELD(CUgraphExecUpdateResultInfo, cudaGraphExecUpdateResultInfo,
              errorFromNode);

RC_SAME_AS(CUgraphEdgeData, cudaGraphEdgeData);
RC_SAME_FIELD(CUgraphEdgeData, cudaGraphEdgeData, from_port);
RC_SAME_FIELD(CUgraphEdgeData, cudaGraphEdgeData, to_port);
RC_SAME_FIELD(CUgraphEdgeData, cudaGraphEdgeData, type);
RC_SAME_FIELD(CUgraphEdgeData, cudaGraphEdgeData, reserved);
RC_SAME_VALUE(CU_GRAPH_DEPENDENCY_TYPE_DEFAULT, cudaGraphDependencyTypeDefault);
RC_SAME_VALUE(CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC,
              cudaGraphDependencyTypeProgrammatic);

RC_SAME_AS(CUgraphInstantiateResult, cudaGraphInstantiateResult);
RC_SAME_VALUE(CUDA_GRAPH_INSTANTIATE_SUCCESS, cudaGraphInstantiateSuccess);
RC_SAME_VALUE(CUDA_GRAPH_INSTANTIATE_ERROR, cudaGraphInstantiateError);
RC_SAME_VALUE(CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE,
              cudaGraphInstantiateInvalidStructure);
RC_SAME_VALUE(CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED,
              cudaGraphInstantiateNodeOperationNotSupported);
RC_SAME_VALUE(CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED,
              cudaGraphInstantiateMultipleDevicesNotSupported);

RC_SAME_AS(CUDA_GRAPH_INSTANTIATE_PARAMS, cudaGraphInstantiateParams);
RC_SAME_FIELDS(CUDA_GRAPH_INSTANTIATE_PARAMS, flags, cudaGraphInstantiateParams,
               flags);
RC_SAME_FIELDS(CUDA_GRAPH_INSTANTIATE_PARAMS, hUploadStream,
               cudaGraphInstantiateParams, uploadStream);
RC_SAME_FIELDS(CUDA_GRAPH_INSTANTIATE_PARAMS, hErrNode_out,
               cudaGraphInstantiateParams, errNode_out);
RC_SAME_FIELDS(CUDA_GRAPH_INSTANTIATE_PARAMS, result_out,
               cudaGraphInstantiateParams, result_out);

// ---- handles: IDs of the same tables under two names --------------------

template <> struct SameAs<CUarray_st, cudaArray> : std::true_type {};

#undef RC_SAME_AS
#undef RC_SAME_VALUE
#undef RC_SAME_FIELD
#undef RC_SAME_FIELDS

} // namespace rc::alias

#endif
