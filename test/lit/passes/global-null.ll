; GlobalNullPass by itself: in a kernel, a null that meets a pointer into
; a kernel argument in a phi becomes the global address space's null cast
; to generic. Not in a function that is no kernel, and not where the other
; pointer is local memory.
; RUN: %opt_rc -passes=rc-global-null %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @kernel(
define void @kernel(ptr %mask, i64 %off, i1 %has, ptr %out) {
entry:
  br i1 %has, label %yes, label %join
yes:
  %p = getelementptr inbounds half, ptr %mask, i64 %off
  br label %join
join:
; CHECK: %m = phi ptr [ %p, %yes ], [ addrspacecast (ptr addrspace(1) null to ptr), %entry ]
  %m = phi ptr [ %p, %yes ], [ null, %entry ]
  store ptr %m, ptr %out
  ret void
}

; CHECK-LABEL: define void @not_a_kernel(
define void @not_a_kernel(ptr %mask, i1 %has, ptr %out) {
entry:
  br i1 %has, label %yes, label %join
yes:
  br label %join
join:
; CHECK: %m = phi ptr [ %mask, %yes ], [ null, %entry ]
  %m = phi ptr [ %mask, %yes ], [ null, %entry ]
  store ptr %m, ptr %out
  ret void
}

; CHECK-LABEL: define void @local_pointer(
define void @local_pointer(i1 %has, ptr %out) {
entry:
  %a = alloca i32
  br i1 %has, label %yes, label %join
yes:
  br label %join
join:
; CHECK: %m = phi ptr [ %a, %yes ], [ null, %entry ]
  %m = phi ptr [ %a, %yes ], [ null, %entry ]
  store ptr %m, ptr %out
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @kernel, !"kernel", i32 1}
!1 = !{ptr @local_pointer, !"kernel", i32 1}
