// The names cuModuleGetFunction was asked for, by the CUfunction it made
// (rc_cuda_module.cpp), for cuFuncGetName.
#ifndef RC_CUDA_CU_MODULE_NAMES_H
#define RC_CUDA_CU_MODULE_NAMES_H

#include <cuda.h>

namespace rc::cu {

void rememberFunctionName(CUfunction f, const char *name);
// Null for no kernel of a module; the string lives as long as the process.
const char *moduleFunctionName(CUfunction f);

} // namespace rc::cu

#endif
