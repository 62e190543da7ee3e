// Every library's rows (abi/include/rc/libcalls/*.def) with the C types of
// the headers the client was built against too (CUDA 12.4's). The only
// file that includes the libraries' headers: the rest of rc-server knows a
// row by its CatalogRow alone.
#include "libraries/library_catalog.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>
#include <npp.h>

namespace rc::server::lib {

// cuBLASLt's descriptors are complete structs a program may keep in its
// own memory; here they are library objects like any other.
template <>
struct IsLibraryObject<cublasLtMatmulDescOpaque_t> : std::true_type {};
template <>
struct IsLibraryObject<cublasLtMatrixLayoutOpaque_t> : std::true_type {};
template <>
struct IsLibraryObject<cublasLtMatmulPreferenceOpaque_t> : std::true_type {};

// Programs still call routines their headers mark deprecated
// (cusparseScsrilu02, conjugateGradientPrecond's), so rows name them too.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

void addRows(std::vector<CatalogRow> *rows) {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  rows->push_back(CatalogRow{#key,                                             \
                             #function,                                        \
                             #destroys,                                        \
                             params,                                           \
                             {},                                               \
                             signatureOf<decltype(::function)>()});
#include "rc/libcalls/cublas.def"
#include "rc/libcalls/cublaslt.def"
#include "rc/libcalls/curand.def"
#include "rc/libcalls/cusolver.def"
#include "rc/libcalls/cusparse.def"
#include "rc/libcalls/npp.def"
#undef RC_LIB_CALL
}

// The test device's cuBLAS (a CPU reference of the GEMMs) has no library
// behind it; streams mean nothing to it, so its cublasSetStream_v2 row
// does nothing. Defined here, with the type every cuBLAS row is called
// through.
static cublasStatus_t setStreamIgnored(cublasHandle_t, cudaStream_t) {
  return CUBLAS_STATUS_SUCCESS;
}
void *cublasSetStreamIgnored() {
  return reinterpret_cast<void *>(&setStreamIgnored);
}

// A cuBLAS row's handle is the session's cuBLAS handle (the wire's
// CublasCreate), not an object a row made.
const void *cublasHandleType() { return detail::objectTag<cublasHandle_t>(); }

} // namespace rc::server::lib
