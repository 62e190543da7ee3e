// A PTX special register with one '%' that the plugin cannot see: the
// template's text comes from a macro.
#define TIMER_REGISTER "%globaltimer"
__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, " TIMER_REGISTER ";" : "=l"(t));
  return t;
}
