// A PTX special register with one '%' in an asm statement with operands.
__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}
