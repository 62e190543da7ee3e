; ThreadLocalAsmPass by itself: inline asm made only of per-thread
; instructions (dp4a, prmt) loses `convergent`; a warp shuffle keeps it.
; RUN: %opt_rc -passes=rc-thread-local-asm %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

define i32 @f(i32 %a, i32 %b, i32 %c) {
; CHECK: %r = call i32 asm "dp4a.s32.s32 {{.*}}) [[LOCAL:#[0-9]+]]
  %r = call i32 asm "dp4a.s32.s32 $0, $1, $2, $3;", "=r,r,r,r"(i32 %a, i32 %b, i32 %c) #0
; CHECK: %s = call i32 asm "shfl.sync.bfly.b32 {{.*}}) [[WARP:#[0-9]+]]
  %s = call i32 asm "shfl.sync.bfly.b32 $0, $1, 1, 31, -1;", "=r,r"(i32 %r) #0
; CHECK: %t = call i32 asm "prmt.b32 {{.*}}) [[LOCAL]]
  %t = call i32 asm "prmt.b32 $0, $1, $2, 0x5410;", "=r,r,r"(i32 %s, i32 %a) #0
  ret i32 %t
}

attributes #0 = { convergent nounwind }
; CHECK: attributes [[LOCAL]] = { nounwind }
; CHECK: attributes [[WARP]] = { convergent nounwind }
