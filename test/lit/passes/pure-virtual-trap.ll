; PureVirtualTrapPass by itself: in a device module whose vtable names
; __cxa_pure_virtual (a class with a pure virtual function), the
; declaration gets a weak body that traps; ptxas and nvlink then find it.
; A module that does not use it is left alone.
; RUN: %opt_rc -passes=rc-pure-virtual-trap %s | FileCheck %s
; RUN: %opt_rc -passes=rc-pure-virtual-trap %S/global-null.ll | FileCheck %s --check-prefix=UNUSED

target triple = "nvptx64-nvidia-cuda"

@_ZTV5Shape = weak_odr addrspace(1) constant { [3 x ptr] } { [3 x ptr] [ptr null, ptr null, ptr @__cxa_pure_virtual] }

; CHECK: define weak void @__cxa_pure_virtual() #[[ATTRS:[0-9]+]] {
; CHECK-NEXT: call void @llvm.trap()
; CHECK-NEXT: unreachable
; CHECK: attributes #[[ATTRS]] = { noreturn }
declare void @__cxa_pure_virtual()

; UNUSED-NOT: __cxa_pure_virtual
