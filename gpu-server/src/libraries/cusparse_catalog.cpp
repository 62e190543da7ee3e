// cuSPARSE's rows (abi/include/rc/libcalls/cusparse.def) with the C types
// of cusparse.h, which the client was built against too.
#include "libraries/library_catalog.h"

#include <cusparse.h>

namespace rc::server::lib {

void addCusparseRows(std::vector<CatalogRow> *rows) {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  rows->push_back(CatalogRow{#key,                                             \
                             #function,                                        \
                             #destroys,                                        \
                             params,                                           \
                             {},                                               \
                             signatureOf<decltype(::function)>()});
#include "rc/libcalls/cusparse.def"
#undef RC_LIB_CALL
}

} // namespace rc::server::lib
