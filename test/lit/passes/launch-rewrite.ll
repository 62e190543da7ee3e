; LaunchRewritePass by itself: a launch of a registered stub calls the
; runtime's ID entry point with the kernel's ID (rc/kernel_id.h: external
; linkage, so fnv1a64 of the device name "_Z3addPfi"); a launch of a
; function that was never registered is left alone.
; RUN: %opt_rc -passes=rc-launch-rewrite %s | FileCheck %s

target triple = "x86_64-unknown-linux-gnu"

@name = private constant [10 x i8] c"_Z3addPfi\00"

define void @_Z18__device_stub__addPfi(ptr %p, i32 %n) {
  ret void
}

define void @other() {
  ret void
}

declare i32 @__cudaRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)
declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

define void @register(ptr %h) {
  %r = call i32 @__cudaRegisterFunction(ptr %h, ptr @_Z18__device_stub__addPfi, ptr @name, ptr @name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
  ret void
}

; CHECK-LABEL: define i32 @launch(
define i32 @launch(i64 %g, i32 %gz, i64 %b, i32 %bz, ptr %args, ptr %s) {
; CHECK: %e = call i32 @__rc_launch_kernel(i64 3438669166771526205, i64 %g, i32 %gz, i64 %b, i32 %bz, ptr %args, i64 0, ptr %s)
  %e = call i32 @cudaLaunchKernel(ptr @_Z18__device_stub__addPfi, i64 %g, i32 %gz, i64 %b, i32 %bz, ptr %args, i64 0, ptr %s)
; CHECK: %f = call i32 @cudaLaunchKernel(ptr @other,
  %f = call i32 @cudaLaunchKernel(ptr @other, i64 %g, i32 %gz, i64 %b, i32 %bz, ptr %args, i64 0, ptr %s)
  %sum = add i32 %e, %f
  ret i32 %sum
}
; CHECK: declare i32 @__rc_launch_kernel(i64, i64, i32, i64, i32, ptr, i64, ptr)
