// cuBLAS commands (docs/cublas.md): the session's cuBLAS handles with their
// device and workspace, and the GEMM, batched TRSM and batched LU calls,
// each checked against the exact extents it touches before the backend
// acts (blas_commands.cpp says how).
#ifndef RC_SERVER_BLAS_COMMANDS_H
#define RC_SERVER_BLAS_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/library_calls.h"
#include "protocol_generated.h"

#include <map>
#include <string>
#include <vector>

namespace rc::server {

class BlasCommands {
public:
  BlasCommands(DeviceBinding &devices, AllocationTable &memory,
               LibraryCalls &libraries)
      : devices_(devices), memory_(memory), libraries_(libraries) {}

  OpStatus handle(const wire::CublasCreate &c, CommandAnswer &a);
  OpStatus handle(const wire::CublasDestroy &c, CommandAnswer &a);
  OpStatus handle(const wire::CublasSetWorkspace &c, CommandAnswer &a);
  OpStatus handle(const wire::CublasGemm &c, CommandAnswer &a);
  OpStatus handle(const wire::CublasTrsmBatched &c, CommandAnswer &a);
  OpStatus handle(const wire::CublasLuBatched &c, CommandAnswer &a);
  // A GEMM, checked and performed; `what` names its entry point in errors.
  OpStatus gemm(const wire::CublasGemm &c, std::string *what);
  // While set, a valid GEMM is checked but not performed, and its pointer
  // arrays are not read (a graph's node being validated).
  void setCheckOnly(bool on) { gemmCheckOnly_ = on; }

private:
  // Checks the handle, resolves `stream` and binds the handle's device.
  OpStatus cublasHandle(uint64_t handle, uint64_t stream, NativeHandle *s);
  OpStatus readPointerArray(const char *role, uint64_t array, int count,
                            uint64_t matrixBytes, NativeHandle s,
                            std::vector<uint64_t> *out);

  DeviceBinding &devices_;
  AllocationTable &memory_;
  LibraryCalls &libraries_;
  // cuBLAS handles of this session -> their device and workspace.
  struct BlasHandle {
    int device = 0;
    uint64_t workspace = 0, workspaceSize = 0;
  };
  std::map<uint64_t, BlasHandle> cublasHandles_;
  bool gemmCheckOnly_ = false;
};

} // namespace rc::server

#endif
