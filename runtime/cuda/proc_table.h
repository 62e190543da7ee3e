// The table cuGetProcAddress resolves names by, generated from the CUDA
// headers by gen_proc_table.py (docs/driver-api.md, "cuGetProcAddress").
#ifndef RC_RUNTIME_CUDA_PROC_TABLE_H
#define RC_RUNTIME_CUDA_PROC_TABLE_H

#include <cstddef>

namespace rc::cu {

// One ABI of a driver function: the CUDA version that introduced it and
// its symbol; perThread for the per-thread-default-stream variant.
struct ProcAbi {
  int since;
  const char *symbol;
  bool perThread;
};

struct ProcName {
  const char *name; // what programs ask for: cuMemAlloc, not cuMemAlloc_v2
  const ProcAbi *abis;
  size_t count;
};

// Sorted by name (strcmp).
extern const ProcName kProcNames[];
extern const size_t kProcNameCount;
// The newest CUDA version whose headers the table was made from: the
// driver API version librc_cuda answers for.
extern const int kNewestDriverApi;

} // namespace rc::cu

#endif
