// A driver copy's parameters as the runtime's (rc_cuda_memory.cpp), for
// the copies themselves and for graph copy nodes (rc_cuda_graphs.cpp).
#ifndef RC_CUDA_CU_COPIES_H
#define RC_CUDA_CU_COPIES_H

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace rc::cu {

// Positions and the width count bytes in the driver and elements on the
// runtime's array side; an array's element size is asked of the runtime.
CUresult toRuntime3D(const CUDA_MEMCPY3D &p, cudaMemcpy3DParms *q);

} // namespace rc::cu

#endif
