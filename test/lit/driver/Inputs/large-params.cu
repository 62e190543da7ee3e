// Kernels with more than 4 KiB of parameters.
struct Big {
  int a[2000];
};
struct Largest {
  int a[8000];
};

__global__ void mixed(char c, Big b, int *out, short s, double d) {
  out[threadIdx.x] = b.a[threadIdx.x] + c + s + static_cast<int>(d);
}

__global__ void largest(Largest l, int *out) { out[threadIdx.x] = l.a[threadIdx.x]; }

int main() {
  mixed<<<1, 1>>>(0, Big{}, nullptr, 0, 0.0);
  largest<<<1, 1>>>(Largest{}, nullptr);
  return 0;
}
