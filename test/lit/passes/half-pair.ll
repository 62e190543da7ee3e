; HalfPairPass by itself: two 16-bit values packed into 32 bits with
; integer arithmetic (and a splat as a multiplication by 65537) become a
; <2 x i16> bitcast; __float2half's asm of a constant folds to the half's
; bits (1.0 is 0x3c00 = 15360).
; RUN: %opt_rc -passes=rc-half-pair %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define i32 @pack(
define i32 @pack(i16 %lo, i16 %hi) {
; CHECK: [[V0:%.*]] = insertelement <2 x i16> poison, i16 %lo, i64 0
; CHECK: [[V1:%.*]] = insertelement <2 x i16> [[V0]], i16 %hi, i64 1
; CHECK: %r = bitcast <2 x i16> [[V1]] to i32
; CHECK-NOT: shl
  %l = zext i16 %lo to i32
  %h = zext i16 %hi to i32
  %s = shl nuw i32 %h, 16
  %r = or disjoint i32 %s, %l
  ret i32 %r
}

; CHECK-LABEL: define i32 @splat(
define i32 @splat(i16 %x) {
; CHECK: [[S0:%.*]] = insertelement <2 x i16> poison, i16 %x, i64 0
; CHECK: [[S1:%.*]] = insertelement <2 x i16> [[S0]], i16 %x, i64 1
; CHECK: %r = bitcast <2 x i16> [[S1]] to i32
  %z = zext i16 %x to i32
  %r = mul nuw i32 %z, 65537
  ret i32 %r
}

; CHECK-LABEL: define i16 @half_of_constant(
define i16 @half_of_constant() {
; CHECK-NEXT: ret i16 15360
  %h = call i16 asm "cvt.rn.f16.f32 $0, $1;", "=h,f"(float 1.000000e+00)
  ret i16 %h
}
