// No #include at all: what nvcc's implicit cuda_runtime.h declares
// (<time.h>, <string.h>, <stdlib.h>, C++'s <math.h>) is declared here too.
// (printf and assert need their headers, with nvcc too.)
__global__ void elapsed(long long *out, const char *src, char *dst) {
  clock_t start = clock();
  memcpy(dst, src, 4);
  memset(dst + 4, 0, 4);
  out[0] = clock() - start;
}

int main(int argc, char **argv) {
  time_t now = time(0);
  clock_t cpu = clock();
  char buffer[16];
  memset(buffer, 0, sizeof buffer);
  memcpy(buffer, "abc", 4);
  size_t length = strlen(buffer) + strlen(argv[0]);
  void *block = malloc(length);
  free(block);
  // C++'s <math.h>: the std:: overloads are global, as with nvcc.
  static_assert(__is_same(decltype(sqrt(2.0f)), float), "std::sqrt(float)");
  double x = sqrt(2.0) + fabs(-1.0f) + abs(-1.5) + isnan(1.0) + signbit(-1.0);
  if (argc > 8)
    exit(1);
  return (int)(now + cpu + (long)x) & 0;
}
