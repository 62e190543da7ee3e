// A header the project includes with quotes is read rewritten too.
__device__ inline unsigned long long clock_of_header() {
  unsigned long long c;
  asm volatile("mov.u64 %0, %clock64;" : "=l"(c));
  return c;
}
