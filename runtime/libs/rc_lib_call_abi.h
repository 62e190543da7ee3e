/* The private ABI between the vendor library replacements (librc_curand,
   ...: the entry points) and librc_cudart.so (the connection and the
   batch): one call for every served function. Both sides are built from
   the same tree; this is not an application interface. */
#ifndef RC_LIB_CALL_ABI_H
#define RC_LIB_CALL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One parameter of the call, as the entry point received it. */
typedef struct RcLibArg {
  const void *value;     /* the parameter's own bytes */
  uint32_t valueBytes;   /* sizeof the parameter */
  uint32_t pointeeBytes; /* pointers: sizeof *p (0: void, incomplete) */
} RcLibArg;

/* Sends the call of row `key` (abi/include/rc/libcalls/<library>.def),
   its arguments encoded by the row's tokens `params` (rc/lib_call.h):
   batched when it returns no host bytes, else one round trip. A new
   object (`c`) gets a client ID, stored through its parameter; a table
   (`t`) a copy the process keeps. Returns a cudaError_t (cudaSuccess once
   sent); *status is the library's status (0 for a batched call, whose
   failure the next synchronization reports). `flags`: RC_LIB_SCALARS_ON_DEVICE
   when the call's `i` and `o` parameters are device memory (a cuBLAS handle
   in CUBLAS_POINTER_MODE_DEVICE). */
#define RC_LIB_SCALARS_ON_DEVICE 1
int __rc_lib_call(const char *key, const char *params, const RcLibArg *args,
                  int count, int flags, int *status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
