// NPP through librc_npp against rc-server --test-device, whose libnppif is
// test/unit/libcalls/fake_nppif.cpp: a by-value NppStreamContext reaches
// the library with its fields and its stream the server's. Prints "ok
// ..." per check and PASS.
#include "program_check.h"

#include <cuda_runtime_api.h>
#include <npp.h>

#include <cstdio>
#include <cstdlib>

static int compress(Npp32u *labels, Npp8u *buffer, cudaStream_t stream) {
  NppStreamContext ctx = {};
  ctx.hStream = stream;
  ctx.nMultiProcessorCount = 7;
  ctx.nStreamFlags = 3;
  int newNumber = -1;
  CHECK(nppiCompressMarkerLabelsUF_32u_C1IR_Ctx(labels, 16, NppiSize{4, 4}, 16,
                                                &newNumber, buffer,
                                                ctx) == NPP_SUCCESS,
        "compress");
  return newNumber;
}

int main() {
  int size = 0;
  CHECK(nppiCompressMarkerLabelsGetBufferSize_32u_C1R(16, &size) ==
                NPP_SUCCESS &&
            size == 64,
        "buffer size");
  Npp32u *labels = nullptr;
  Npp8u *buffer = nullptr;
  CHECK(cudaMalloc(&labels, 64) == cudaSuccess &&
            cudaMalloc(&buffer, size) == cudaSuccess,
        "malloc");
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream) == cudaSuccess, "stream");
  int onStream = compress(labels, buffer, stream),
      onLegacy = compress(labels, buffer, nullptr);
  CHECK(onStream == 7031 && onLegacy == 7030, "the context's fields");
  std::printf("ok the stream context's fields and stream reach NPP\n");
  CHECK(nppGetLibVersion()->major == NPP_VER_MAJOR, "version");
  std::printf("PASS\n");
  return 0;
}
