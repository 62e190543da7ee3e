// Host code gcc, nvcc's host compiler, accepts with a warning and clang
// refuses by default: remote-clang warns as gcc does.
#include <cinttypes>

int use_register() {
  register int r = 1; // REGISTER: C++17 has no `register`
  return r;
}
int narrow_integer(long v) {
  int a[] = {v}; // NARROW_INT: a non-constant narrowed in braces
  return a[0];
}
int narrow_floating(double d) {
  int a[] = {d}; // NARROW_FLOAT: the same from floating point
  return a[0];
}
const char *format = "%"PRId64; // LITERAL: no space before the macro
enum Two { Zero, One };
constexpr Two out_of_range = static_cast<Two>(7); // ENUM: outside Two's values
template <class T> struct Holder {
  template <class U> static void f();
};
template <class T> void no_arguments() {
  T::template f; // TEMPLATE_KW: `template` without an argument list
}
// nvcc compiles kernels and __device__ functions for the device only,
// where its front end warns about any narrowing, of constants too.
__global__ void device_constants(int *out) {
  int table[2] = {0.0, 1.0}; // DEVICE_FLOAT
  char byte[1] = {300};      // DEVICE_INT
  out[0] = table[1] + byte[0];
}
