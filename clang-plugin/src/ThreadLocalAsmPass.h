// LLVM pass: in a device (NVPTX) module, drops the `convergent` attribute
// from inline-asm calls whose every PTX instruction acts on its own thread
// only (dp4a, prmt, cvt, ...).
//
// Why: clang marks every inline asm in CUDA device code convergent, because
// an asm statement might hold a barrier or a warp-collective instruction.
// LLVM refuses to runtime-unroll a loop that contains a convergent call (the
// remainder loop would add control dependence), so the hot loops of
// llama.cpp's quantized mat-vec kernels, which call __dp4a (an asm in
// CUDA's sm_61_intrinsics.hpp), stayed rolled where nvcc unrolls them: 4-6 %
// slower mat-vecs on the H100
// (docs/design/server-replay.md). Dropping the
// attribute is exact, not a guess: convergence only constrains operations
// that communicate between threads, and an asm made solely of per-thread
// arithmetic, conversion, moves, loads and stores communicates with none.
// Anything unrecognised keeps the attribute.
#ifndef RC_PLUGIN_THREADLOCALASMPASS_H
#define RC_PLUGIN_THREADLOCALASMPASS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"

namespace rcplugin {

// True when every instruction of the PTX asm template is thread-local.
bool isThreadLocalPtx(llvm::StringRef asmText);

class ThreadLocalAsmPass : public llvm::PassInfoMixin<ThreadLocalAsmPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
};

} // namespace rcplugin

#endif
