// libfabric, loaded at the first endpoint instead of at program start, with
// every signal disposition of the process kept as it was.
//
// Debian's libfabric 1.17 links libpsm_infinipath, whose libinfinipath
// installs handlers for SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGILL and SIGABRT
// from its constructor: they print a backtrace and call exit(). A client
// interrupted inside a CUDA call then ran its exit handlers inside the
// signal handler and waited forever for the runtime lock the interrupted
// thread held (56 of 80 clients hung on SIGINT or SIGTERM). Loading the
// library ourselves, between saving and restoring the dispositions, leaves
// the application's (and the sanitizers') handlers in place; the default
// action of SIGINT and SIGTERM ends the process at once.
//
// Only the loading is guarded: handlers a provider installs later, for its
// own endpoints, stay (shm's, installed by fi_endpoint, unlink its regions
// and then hand the signal on to the disposition that was there before).
//
// The five libfabric functions that are not inline (fi_getinfo, fi_freeinfo,
// fi_dupinfo, fi_fabric, fi_strerror) are defined in fabric_library.cpp and
// forward to the loaded library; everything else goes through the ops
// tables of the objects they return.
#ifndef RC_TRANSPORT_FABRIC_LIBRARY_H
#define RC_TRANSPORT_FABRIC_LIBRARY_H

#include <string>

namespace rc::transport::detail {

// Loads libfabric once; false with *error naming the library and the
// loader's reason when it cannot be loaded.
bool loadFabricLibrary(std::string *error);

} // namespace rc::transport::detail

#endif
