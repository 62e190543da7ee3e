; LoopRematPass by itself: when a loop's live-in values exceed the register
; budget, loop-invariant generic addresses of shared memory are recomputed
; next to their uses inside the loop from the shared pointer they start
; from; within the budget (the default, 384) nothing moves.
; RUN: %opt_rc -passes=rc-loop-remat -rc-loop-remat-budget=1 %s | FileCheck %s --check-prefix=TIGHT
; RUN: %opt_rc -passes=rc-loop-remat %s | FileCheck %s --check-prefix=ROOMY

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; TIGHT-LABEL: define void @k(
; TIGHT: entry:
; TIGHT-NEXT: br label %loop
; TIGHT: loop:
; TIGHT: addrspacecast ptr addrspace(3) %base to ptr
; TIGHT: %va = load i32, ptr %a.remat
; TIGHT: %vb = load i32, ptr %b.remat
; TIGHT: %vc = load i32, ptr %c.remat
; ROOMY-LABEL: define void @k(
; ROOMY: entry:
; ROOMY-NEXT: %g = addrspacecast
; ROOMY: loop:
; ROOMY: %va = load i32, ptr %a,
define void @k(ptr addrspace(3) %base, i32 %n, ptr %out) {
entry:
  %g = addrspacecast ptr addrspace(3) %base to ptr
  %a = getelementptr inbounds i8, ptr %g, i64 64
  %b = getelementptr inbounds i8, ptr %g, i64 128
  %c = getelementptr inbounds i8, ptr %g, i64 192
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %va = load i32, ptr %a
  %vb = load i32, ptr %b
  %vc = load i32, ptr %c
  %s1 = add i32 %va, %vb
  %s = add i32 %s1, %vc
  store i32 %s, ptr %out
  %i1 = add i32 %i, 1
  %cmp = icmp slt i32 %i1, %n
  br i1 %cmp, label %loop, label %exit
exit:
  ret void
}
