; WideCopyPass by itself: a memcpy of 16 or 32 bytes whose ends are both
; 16-byte aligned becomes 128-bit loads and stores; one end less aligned,
; or a size that is not a multiple of 16, stays a memcpy.
; RUN: %opt_rc -passes=rc-wide-copy %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @copy16(
define void @copy16(ptr addrspace(3) align 16 %dst, ptr addrspace(1) align 16 %src) {
; CHECK: [[V:%.*]] = load <4 x i32>, ptr addrspace(1) {{%.*}}, align 16
; CHECK: store <4 x i32> [[V]], ptr addrspace(3) {{%.*}}, align 16
; CHECK-NOT: memcpy
  call void @llvm.memcpy.p3.p1.i64(ptr addrspace(3) align 16 %dst, ptr addrspace(1) align 16 %src, i64 16, i1 false)
  ret void
}

; CHECK-LABEL: define void @copy32(
define void @copy32(ptr align 16 %dst, ptr align 16 %src) {
; CHECK-COUNT-2: load <4 x i32>
; CHECK-COUNT-2: store <4 x i32>
; CHECK-NOT: memcpy
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %dst, ptr align 16 %src, i64 32, i1 false)
  ret void
}

; CHECK-LABEL: define void @unaligned(
define void @unaligned(ptr align 8 %dst, ptr align 16 %src) {
; CHECK-NEXT: call void @llvm.memcpy
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %dst, ptr align 16 %src, i64 16, i1 false)
  ret void
}

; CHECK-LABEL: define void @odd_size(
define void @odd_size(ptr align 16 %dst, ptr align 16 %src) {
; CHECK-NEXT: call void @llvm.memcpy
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %dst, ptr align 16 %src, i64 24, i1 false)
  ret void
}

declare void @llvm.memcpy.p3.p1.i64(ptr addrspace(3), ptr addrspace(1), i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
