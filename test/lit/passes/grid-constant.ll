; GridConstantPass by itself: a kernel's by-value parameter annotated
; rc.grid_constant (how rc-clang-cuda-fixes.h spells __grid_constant__)
; keeps its address in the parameter space: every use other than a chain of
; loads gets the parameter's generic address (mov of its PTX name,
; cvta.param); loads stay. The annotation calls go, also where nothing else
; changes (a scalar's local copy, a function that is no kernel).
; RUN: %opt_rc -passes=rc-grid-constant %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

%struct.Map = type { [16 x i64] }

@.str = private unnamed_addr constant [17 x i8] c"rc.grid_constant\00", section "llvm.metadata"
@.other = private unnamed_addr constant [6 x i8] c"other\00", section "llvm.metadata"
@.file = private unnamed_addr constant [5 x i8] c"a.cu\00", section "llvm.metadata"

declare void @llvm.var.annotation.p0.p0(ptr, ptr, ptr, i32, ptr)
declare void @use(ptr)

; CHECK-LABEL: define void @kernel(
; CHECK-NEXT: %map.param = call ptr asm "mov.b64 $0, kernel_param_0;\0A\09cvta.param.u64 $0, $0;", "=l"()
; CHECK-NOT: llvm.var.annotation
; CHECK: %first = load i64, ptr %map
; CHECK: %field = getelementptr inbounds i8, ptr %map, i64 8
; CHECK: %second = load i64, ptr %field
; CHECK: call void @use(ptr %map.param)
; CHECK: %inner = getelementptr inbounds i8, ptr %map.param, i64 16
; CHECK: call void @use(ptr %inner)
define void @kernel(ptr byval(%struct.Map) align 64 %map, i32 %n, ptr %out) {
  %copy = alloca i32, align 4
  store i32 %n, ptr %copy
  call void @llvm.var.annotation.p0.p0(ptr %map, ptr @.str, ptr @.file, i32 3, ptr null)
  call void @llvm.var.annotation.p0.p0(ptr %copy, ptr @.str, ptr @.file, i32 3, ptr null)
  %first = load i64, ptr %map
  %field = getelementptr inbounds i8, ptr %map, i64 8
  %second = load i64, ptr %field
  %sum = add i64 %first, %second
  store i64 %sum, ptr %out
  call void @use(ptr %map)
  %inner = getelementptr inbounds i8, ptr %map, i64 16
  call void @use(ptr %inner)
  ret void
}

; Another annotation stays; no parameter of a function that is no kernel
; moves.
; CHECK-LABEL: define void @device_function(
; CHECK-NEXT: call void @llvm.var.annotation.p0.p0(ptr %map, ptr @.other
; CHECK-NEXT: call void @use(ptr %map)
define void @device_function(ptr byval(%struct.Map) align 64 %map) {
  call void @llvm.var.annotation.p0.p0(ptr %map, ptr @.other, ptr @.file, i32 9, ptr null)
  call void @llvm.var.annotation.p0.p0(ptr %map, ptr @.str, ptr @.file, i32 9, ptr null)
  call void @use(ptr %map)
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @kernel, !"kernel", i32 1}
