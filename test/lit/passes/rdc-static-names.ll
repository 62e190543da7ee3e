; RdcStaticNamesPass by itself: in an -fgpu-rdc device module, a kernel
; emitted before clang externalized a static __device__ variable refers to
; the plain name, left as a declaration; the pass points it at the
; externalized definition and drops the declaration. A declaration with no
; such definition (a real extern) stays.
; RUN: %opt_rc -passes=rc-rdc-static-names %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; CHECK-NOT: @_ZL7s_count = external
; CHECK: @_ZL7s_count__static__a51d2d92d85002ea = addrspace(1) externally_initialized global i32 0
; CHECK: @other = external addrspace(1) global i32
@_ZL7s_count = external addrspace(1) global i32
@_ZL7s_count__static__a51d2d92d85002ea = addrspace(1) externally_initialized global i32 0
@other = external addrspace(1) global i32

; CHECK-LABEL: define void @bump(
define void @bump() {
; CHECK: atomicrmw add ptr addrspace(1) @_ZL7s_count__static__a51d2d92d85002ea, i32 1
  %old = atomicrmw add ptr addrspace(1) @_ZL7s_count, i32 1 monotonic
; CHECK: load i32, ptr addrspace(1) @other
  %v = load i32, ptr addrspace(1) @other
  ret void
}
