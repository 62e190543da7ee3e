// Thrust on the host, as cuda-samples' radixSortThrust sorts its keys.
#include <thrust/host_vector.h>
#include <thrust/sort.h>
int main() {
  thrust::host_vector<int> keys(4);
  thrust::sort(keys.begin(), keys.end());
  return keys[0];
}
