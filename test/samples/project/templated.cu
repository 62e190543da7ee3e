// One kernel template instantiated for several element types and functors:
// each instantiation is its own kernel with its own ID and layout.
#include "check.h"
#include <cstdint>
#include <vector>

struct Scale {
  float factor;
  template <typename T> __device__ T operator()(T x) const {
    return T(x * factor);
  }
};
struct AddOffset {
  int offset;
  template <typename T> __device__ T operator()(T x) const {
    return T(x + offset);
  }
};

template <typename T, typename Op>
__global__ void transform(const T *in, T *out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = op(in[i]);
}

template <typename T, typename Op, typename Ref>
long run(int n, Op op, Ref ref) {
  std::vector<T> in(n), out(n);
  for (int i = 0; i < n; ++i)
    in[i] = T(i % 97);
  T *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(T)));
  CHECK(cudaMalloc(&dout, n * sizeof(T)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  transform<<<(n + 127) / 128, 128>>>(din, dout, n, op);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  long bad = 0;
  for (int i = 0; i < n; ++i)
    bad += out[i] != ref(in[i]);
  return bad;
}

int main() {
  const int n = 10000;
  long bad = 0;
  bad += run<float>(n, Scale{2.5f}, [](float x) { return x * 2.5f; });
  bad +=
      run<double>(n, Scale{-1.5f}, [](double x) { return double(x * -1.5f); });
  bad += run<int>(n, AddOffset{7}, [](int x) { return x + 7; });
  bad += run<int64_t>(n, AddOffset{-3}, [](int64_t x) { return x - 3; });
  bad += run<uint8_t>(n, AddOffset{100},
                      [](uint8_t x) { return uint8_t(x + 100); });
  return finish("templated", bad);
}
