; ArrayIndexSelectPass by itself: a load from a two-element local array at
; a run-time index becomes a select on the index, and the array leaves
; local memory. An array larger than 8 elements stays.
; RUN: %opt_rc -passes=rc-array-index-select %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define float @pick(
define float @pick(float %a, float %b, i32 %i) {
; CHECK-NOT: alloca
; CHECK: [[IS1:%.*]] = icmp eq i64 %idx, 1
; CHECK: %v = select i1 [[IS1]], float %b, float %a
  %arr = alloca [2 x float], align 4
  store float %a, ptr %arr, align 4
  %second = getelementptr inbounds [2 x float], ptr %arr, i64 0, i64 1
  store float %b, ptr %second, align 4
  %idx = zext i32 %i to i64
  %at = getelementptr inbounds [2 x float], ptr %arr, i64 0, i64 %idx
  %v = load float, ptr %at, align 4
  ret float %v
}

; CHECK-LABEL: define float @too_large(
define float @too_large(i32 %i) {
; CHECK: alloca [16 x float]
; CHECK: %v = load float, ptr %at
  %arr = alloca [16 x float], align 4
  %idx = zext i32 %i to i64
  %at = getelementptr inbounds [16 x float], ptr %arr, i64 0, i64 %idx
  %v = load float, ptr %at, align 4
  ret float %v
}
