// What gcc refuses too stays an error: narrowing of constants. Passing a
// non-trivial object through `...` gcc accepts, but clang would compile it
// into a trap: an error too.
#include <cstdio>
#include <string>

char narrow_constant() {
  char a[] = {300}; // CONSTANT_INT
  return a[0];
}
int narrow_constant_floating() {
  return int{2.5}; // CONSTANT_FLOAT
}
void through_varargs(std::string s) {
  std::printf("%s\n", s); // VARARGS
}
// Compiled for the host as well: gcc's rule.
__host__ __device__ char both_sides() {
  char a[] = {300}; // HOST_DEVICE
  return a[0];
}
