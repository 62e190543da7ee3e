// cuSOLVER's rows (abi/include/rc/libcalls/cusolver.def) with the C types
// of cusolverDn.h and cusolverSp.h, which the client was built against
// too.
#include "libraries/library_catalog.h"

#include <cusolverDn.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>

namespace rc::server::lib {

void addCusolverRows(std::vector<CatalogRow> *rows) {
#define RC_LIB_CALL(key, function, params, destroys)                           \
  rows->push_back(CatalogRow{#key,                                             \
                             #function,                                        \
                             #destroys,                                        \
                             params,                                           \
                             {},                                               \
                             signatureOf<decltype(::function)>()});
#include "rc/libcalls/cusolver.def"
#undef RC_LIB_CALL
}

} // namespace rc::server::lib
