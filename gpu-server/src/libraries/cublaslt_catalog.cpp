// cuBLASLt's rows (abi/include/rc/libcalls/cublaslt.def) with the C types
// of cublasLt.h. Its descriptors are complete structs a program may keep
// in its own memory; here they are library objects like any other.
#include "libraries/library_catalog.h"

#include <cublasLt.h>

namespace rc::server::lib {

template <>
struct IsLibraryObject<cublasLtMatmulDescOpaque_t> : std::true_type {};
template <>
struct IsLibraryObject<cublasLtMatrixLayoutOpaque_t> : std::true_type {};
template <>
struct IsLibraryObject<cublasLtMatmulPreferenceOpaque_t> : std::true_type {};

void addCublasLtRows(std::vector<CatalogRow> *rows) {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  rows->push_back(CatalogRow{#key,                                             \
                             #function,                                        \
                             #destroys,                                        \
                             params,                                           \
                             {},                                               \
                             signatureOf<decltype(::function)>()});
#include "rc/libcalls/cublaslt.def"
#undef RC_LIB_CALL
}

} // namespace rc::server::lib
