// clang's CUDA device modules mark kernels in !nvvm.annotations:
// {ptr @f, !"kernel", i32 1}. Shared by the device passes that look for
// kernels.
#ifndef RC_PLUGIN_NVVMANNOTATIONS_H
#define RC_PLUGIN_NVVMANNOTATIONS_H

namespace llvm {
class Function;
}

namespace rcplugin {

/// Whether clang marked `f` a kernel (__global__).
bool isKernel(const llvm::Function &f);

} // namespace rcplugin

#endif
