// Vendor library calls (docs/libraries.md; library_calls.cpp says how a
// call is checked), and what the session's calls leave behind: the objects
// they made (generators, descriptors) by client ID, destroyed newest first
// when the session ends; host work buffers; and the stream the program
// last gave each library object, which a graph's node returns it to.
#ifndef RC_SERVER_LIBRARY_CALLS_H
#define RC_SERVER_LIBRARY_CALLS_H

#include "executor/allocation_table.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/reply_writer.h"
#include "protocol_generated.h"

#include <map>
#include <string>
#include <vector>

namespace rc::lib {
struct ParamRule;
} // namespace rc::lib

namespace rc::server {

namespace lib {
struct CatalogRow;
struct Slot;
} // namespace lib

class LibraryCalls {
public:
  LibraryCalls(DeviceBinding &devices, AllocationTable &memory,
               ReplyWriter &reply)
      : devices_(devices), memory_(memory), reply_(reply) {}
  // Destroys the objects the session's calls made, newest first.
  void destroyObjects();

  OpStatus handle(const wire::LibCall &c, CommandAnswer &a);
  // While set, a valid call is checked but not performed (a graph's node
  // being validated).
  void setCheckOnly(bool on) { checkOnly_ = on; }
  // `stream` is destroyed: objects given it go back to the legacy stream.
  void forgetStream(void *stream);
  // The library's `object` is destroyed (a cuBLAS handle).
  void forgetObject(void *object) { libraryStreams_.erase(object); }

private:
  // The library's cublasHandle_t behind a session's cuBLAS handle, for a
  // row that names one.
  OpStatus cublasRowHandle(uint64_t handle, void **out);
  // A row's function: cuBLAS's from the session's libcublas, the others'
  // from the catalog. Null and *why when missing.
  void *librarySymbolOf(const lib::CatalogRow &row, std::string *why);
  // Calls a checked row: under the cuBLAS device pointer mode if asked; as
  // a graph's node (a stream override), with its object on the graph's
  // stream for the call.
  OpStatus invokeLibraryCall(const lib::CatalogRow &row,
                             const std::vector<rc::lib::ParamRule> &rules,
                             std::vector<lib::Slot> &slots, void *symbol,
                             bool scalarsOnDevice, int *status);

  DeviceBinding &devices_;
  AllocationTable &memory_;
  ReplyWriter &reply_;
  struct LibObject {
    void *native = nullptr;
    const void *type = nullptr; // lib_invoke.h's tag of its C type
    std::string destroys;       // the catalog row that destroys it
    int device = 0;
    uint64_t order = 0;
  };
  std::map<uint64_t, LibObject> libObjects_;
  uint64_t libObjectsMade_ = 0;
  // Host work buffers (`w`) by the client's address, and the largest size
  // a call reported for them (`z`).
  std::map<uint64_t, std::vector<uint8_t>> hostWork_;
  uint64_t hostWorkBytes_ = 0;
  uint64_t hostWorkHeld_ = 0; // their bytes, bounded per session
  // The stream the program last gave each library object (its *SetStream
  // row), by the library's object: where a node returns it.
  std::map<void *, void *> libraryStreams_;
  bool checkOnly_ = false;
};

} // namespace rc::server

#endif
