; UsedExternalPass by itself: clang 19 (-fgpu-rdc) lists the kernels host
; code launches in __clang_gpu_used_external. A kernel defined in another
; translation unit is only declared here; PTX would declare it `.extern
; .func`, and nvlink refuses a kernel that is a function in one object. The
; declaration leaves the list (and the module); definitions stay.
; RUN: %opt_rc -passes=rc-used-external %s | FileCheck %s
; RUN: %opt_rc -passes=rc-used-external %S/Inputs/used-external-only-declared.ll | FileCheck %s --check-prefix=EMPTY

target triple = "nvptx64-nvidia-cuda"

; CHECK: @__clang_gpu_used_external = internal global [1 x ptr] [ptr @_Z5localv]
; CHECK: @llvm.compiler.used = appending global [1 x ptr] [ptr @__clang_gpu_used_external]
@__clang_gpu_used_external = internal global [2 x ptr] [ptr @_Z4spinPVj, ptr @_Z5localv]
@llvm.compiler.used = appending global [1 x ptr] [ptr @__clang_gpu_used_external], section "llvm.metadata"

; CHECK-NOT: declare {{.*}}@_Z4spinPVj
declare void @_Z4spinPVj(ptr)

; CHECK: define void @_Z5localv()
define void @_Z5localv() {
  ret void
}

; EMPTY-NOT: __clang_gpu_used_external
; EMPTY-NOT: llvm.compiler.used
; EMPTY-NOT: @_Z4spinPVj
