// cuRAND's host API through librc_curand against rc-server --test-device,
// whose libcurand is test/unit/libcalls/fake_curand.cpp. Prints "ok ..."
// per check and PASS at the end; libcalls_integration_test.cpp reads it.
#include "program_check.h"

#include <cuda_runtime_api.h>
#include <curand.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

static std::vector<float> uniform(curandGenerator_t g, float *dev, size_t n,
                                  unsigned long long seed) {
  std::vector<float> host(n);
  CHECK(curandSetPseudoRandomGeneratorSeed(g, seed) == CURAND_STATUS_SUCCESS,
        "seed");
  CHECK(curandGenerateUniform(g, dev, n) == CURAND_STATUS_SUCCESS, "generate");
  CHECK(cudaMemcpy(host.data(), dev, n * 4, cudaMemcpyDeviceToHost) ==
            cudaSuccess,
        "copy back");
  return host;
}

int main() {
  int version = 0;
  CHECK(curandGetVersion(&version) == CURAND_STATUS_SUCCESS, "version");
  std::printf("ok curandGetVersion %d\n", version);

  const size_t n = 1000;
  float *dev = nullptr;
  CHECK(cudaMalloc(&dev, n * 4) == cudaSuccess, "malloc");
  curandGenerator_t g = nullptr;
  CHECK(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT) ==
            CURAND_STATUS_SUCCESS,
        "create");
  CHECK(curandSetStream(g, cudaStreamPerThread) == CURAND_STATUS_SUCCESS,
        "set stream");
  std::vector<float> a = uniform(g, dev, n, 1234), b = uniform(g, dev, n, 1234),
                     c = uniform(g, dev, n, 99);
  bool inRange = true, varied = false;
  for (size_t i = 0; i < n; ++i) {
    inRange &= a[i] > 0 && a[i] <= 1;
    varied |= a[i] != a[0];
  }
  CHECK(inRange && varied, "uniform values in (0, 1]");
  CHECK(a == b && a != c, "a seed gives its sequence again");
  std::printf("ok curandGenerateUniform into device memory\n");

  // On a capturing stream, a call that queues device work becomes a node
  // of the graph (docs/graphs.md); setting the seed meanwhile runs at once.
  {
    cudaStream_t s = nullptr;
    float *captured = nullptr;
    CHECK(cudaStreamCreate(&s) == cudaSuccess &&
              cudaMalloc(&captured, n * 4) == cudaSuccess &&
              cudaMemset(captured, 0, n * 4) == cudaSuccess &&
              curandSetStream(g, s) == CURAND_STATUS_SUCCESS,
          "stream and buffer");
    cudaGraph_t graph = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) ==
                  cudaSuccess &&
              curandSetPseudoRandomGeneratorSeed(g, 1234) ==
                  CURAND_STATUS_SUCCESS &&
              curandGenerateUniform(g, captured, n) == CURAND_STATUS_SUCCESS &&
              cudaStreamEndCapture(s, &graph) == cudaSuccess,
          "capture");
    size_t nodes = 0;
    std::vector<float> before(n), after(n);
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess &&
              cudaMemcpy(before.data(), captured, n * 4,
                         cudaMemcpyDeviceToHost) == cudaSuccess,
          "nodes");
    CHECK(nodes == 1 && before == std::vector<float>(n, 0.0f),
          "one node, nothing generated while capturing");
    cudaGraphExec_t exec = nullptr;
    CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess &&
              cudaGraphLaunch(exec, s) == cudaSuccess &&
              cudaMemcpy(after.data(), captured, n * 4,
                         cudaMemcpyDeviceToHost) == cudaSuccess,
          "launch");
    CHECK(after == a, "the launch generated the seed's sequence");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    CHECK(curandSetStream(g, cudaStreamPerThread) == CURAND_STATUS_SUCCESS &&
              cudaStreamDestroy(s) == cudaSuccess,
          "stream back");
    std::printf("ok curandGenerateUniform captured into a graph\n");
  }

  curandGenerator_t h = nullptr;
  CHECK(curandCreateGeneratorHost(&h, CURAND_RNG_PSEUDO_DEFAULT) ==
            CURAND_STATUS_SUCCESS,
        "create host");
  std::vector<float> onHost(n);
  CHECK(curandSetPseudoRandomGeneratorSeed(h, 1234) == CURAND_STATUS_SUCCESS,
        "host seed");
  CHECK(curandGenerateUniform(h, onHost.data(), n) == CURAND_STATUS_SUCCESS,
        "host generate");
  CHECK(onHost == a, "a host generator writes host memory");
  std::printf("ok curandCreateGeneratorHost writes host memory\n");

  // Managed memory (docs/managed-memory.md): setting a
  // generator up leaves it to the host; generating into it fences it until
  // a synchronization brings the numbers back; a host generator's numbers
  // written into it meanwhile reach both of its copies.
  {
    float *m = nullptr, *m2 = nullptr;
    CHECK(cudaMallocManaged(reinterpret_cast<void **>(&m), n * 4) ==
                  cudaSuccess &&
              cudaMallocManaged(reinterpret_cast<void **>(&m2), n * 4) ==
                  cudaSuccess,
          "managed memory");
    curandGenerator_t g2 = nullptr;
    CHECK(curandCreateGenerator(&g2, CURAND_RNG_PSEUDO_DEFAULT) ==
                  CURAND_STATUS_SUCCESS &&
              curandSetPseudoRandomGeneratorSeed(g2, 1234) ==
                  CURAND_STATUS_SUCCESS,
          "generator set up");
    m[0] = -1.0f; // the program would end here had the set-up fenced it
    CHECK(curandGenerateUniform(g2, m, n) == CURAND_STATUS_SUCCESS,
          "generate into managed memory");
    CHECK(curandSetPseudoRandomGeneratorSeed(h, 1234) ==
                  CURAND_STATUS_SUCCESS &&
              curandGenerateUniform(h, m2, n) == CURAND_STATUS_SUCCESS,
          "a host generator into fenced managed memory");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
    CHECK(std::vector<float>(m, m + n) == a, "the device's numbers");
    CHECK(std::vector<float>(m2, m2 + n) == a, "the host generator's numbers");
    std::vector<float> device2(n);
    CHECK(cudaMemcpy(device2.data(), m2, n * 4, cudaMemcpyDeviceToHost) ==
                  cudaSuccess &&
              device2 == a,
          "the host generator's numbers on the device too");
    CHECK(curandDestroyGenerator(g2) == CURAND_STATUS_SUCCESS &&
              cudaFree(m) == cudaSuccess && cudaFree(m2) == cudaSuccess,
          "managed clean-up");
    std::printf("ok managed memory: set-up leaves it open, generating "
                "fences it\n");
  }

  curandDirectionVectors32_t *vectors = nullptr;
  CHECK(curandGetDirectionVectors32(&vectors,
                                    CURAND_DIRECTION_VECTORS_32_JOEKUO6) ==
            CURAND_STATUS_SUCCESS,
        "direction vectors");
  CHECK(vectors && vectors[0][1] == 1 && vectors[19999][31] == 639999,
        "the library's table");
  CHECK(curandGetDirectionVectors32(
            &vectors, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6) ==
            CURAND_STATUS_OUT_OF_RANGE,
        "the library's status comes back");
  std::printf("ok curandGetDirectionVectors32 table and status\n");

  curandGenerator_t bad = nullptr;
  CHECK(curandCreateGenerator(&bad, CURAND_RNG_QUASI_SOBOL32) ==
            CURAND_STATUS_SUCCESS,
        "a batched call returns at once");
  cudaError_t err = cudaDeviceSynchronize();
  std::printf("ok a refused type fails the next sync: %s\n",
              cudaGetErrorName(err));

  // Past the allocation: refused by the server, named, at the next sync.
  CHECK(curandGenerateUniform(g, dev, n + 1) == CURAND_STATUS_SUCCESS,
        "batched");
  err = cudaDeviceSynchronize();
  std::printf("ok past the allocation: %s\n", cudaGetErrorName(err));

  CHECK(curandDestroyGenerator(h) == CURAND_STATUS_SUCCESS, "destroy");
  CHECK(curandGenerateUniform(h, dev, n) == CURAND_STATUS_SUCCESS, "batched");
  err = cudaDeviceSynchronize();
  std::printf("ok a destroyed generator: %s\n", cudaGetErrorName(err));
  // `g` is left for the server to destroy when the session ends.
  std::printf("PASS\n");
  return 0;
}
