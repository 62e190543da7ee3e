// cuRAND's rows (abi/include/rc/libcalls/curand.def) with the C types of
// curand.h, which the client was built against too.
#include "libraries/library_catalog.h"

#include <curand.h>

namespace rc::server::lib {

void addCurandRows(std::vector<CatalogRow> *rows) {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  rows->push_back(CatalogRow{#key,                                             \
                             #function,                                        \
                             #destroys,                                        \
                             params,                                           \
                             {},                                               \
                             signatureOf<decltype(::function)>()});
#include "rc/libcalls/curand.def"
#undef RC_LIB_CALL
}

} // namespace rc::server::lib
