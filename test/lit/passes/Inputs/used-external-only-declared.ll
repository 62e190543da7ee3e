; Only a declared kernel in the list: the list, its llvm.compiler.used
; entry and the declaration all go (used-external.ll).
target triple = "nvptx64-nvidia-cuda"

@__clang_gpu_used_external = internal global [1 x ptr] [ptr @_Z4spinPVj]
@llvm.compiler.used = appending global [1 x ptr] [ptr @__clang_gpu_used_external], section "llvm.metadata"

declare void @_Z4spinPVj(ptr)
