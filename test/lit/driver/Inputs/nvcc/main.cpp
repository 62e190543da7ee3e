// The host program: C++ calling the .cu launcher and a C helper.
extern "C" int count_of(int n);
int scale_on_gpu(float *host, int n);

int main() {
  float v[4] = {1, 2, 3, 4};
  return scale_on_gpu(v, count_of(4));
}
