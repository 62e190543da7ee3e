// cuBLAS's rows (abi/include/rc/libcalls/cublas.def) with the C types of
// cublas_api.h. Their handle is the session's cuBLAS handle (the wire's
// CublasCreate), not an object a row made: cublasHandleType() lets the
// executor tell it apart.
#include "libraries/library_catalog.h"

#include <cublas_v2.h>

namespace rc::server::lib {

void addCublasRows(std::vector<CatalogRow> *rows) {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  rows->push_back(CatalogRow{#key,                                             \
                             #function,                                        \
                             #destroys,                                        \
                             params,                                           \
                             {},                                               \
                             signatureOf<decltype(::function)>()});
#include "rc/libcalls/cublas.def"
#undef RC_LIB_CALL
}

const void *cublasHandleType() { return detail::objectTag<cublasHandle_t>(); }

} // namespace rc::server::lib
