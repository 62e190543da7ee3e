// cuSOLVER's sparse permutation through librc_cusolver against rc-server
// --test-device, whose libcusolver is test/unit/libcalls/fake_cusolver.cpp:
// a work size remembered by the session, arrays read and written, a host
// work buffer kept between calls. Prints "ok ..." per check and PASS.
#include "program_check.h"

#include <cuda_runtime_api.h>
#include <cusolverSp.h>
#include <cusparse.h>

#include <cstdio>
#include <cstdlib>

int main() {
  cusolverSpHandle_t h;
  cusparseMatDescr_t descr;
  CHECK(cusolverSpCreate(&h) == CUSOLVER_STATUS_SUCCESS, "create");
  CHECK(cusparseCreateMatDescr(&descr) == CUSPARSE_STATUS_SUCCESS,
        "a cuSPARSE descriptor");
  int rowPtr[3] = {0, 1, 2}, colInd[2] = {0, 1}, p[2] = {0, 1}, map[2] = {0, 1};
  char work[64];
  // Before any size was reported, a work buffer is refused by name.
  CHECK(cusolverSpXcsrpermHost(h, 2, 2, 2, descr, rowPtr, colInd, p, p, map,
                               work) != CUSOLVER_STATUS_SUCCESS,
        "no work size yet");
  std::printf("ok a work buffer before its size is refused\n");
  size_t bytes = 0;
  CHECK(cusolverSpXcsrperm_bufferSizeHost(h, 2, 2, 2, descr, rowPtr, colInd, p,
                                          p,
                                          &bytes) == CUSOLVER_STATUS_SUCCESS &&
            bytes == 64,
        "work size");
  for (int call = 1; call <= 2; ++call)
    CHECK(cusolverSpXcsrpermHost(h, 2, 2, 2, descr, rowPtr, colInd, p, p, map,
                                 work) == CUSOLVER_STATUS_SUCCESS,
          "permute");
  CHECK(rowPtr[0] == 2 && rowPtr[2] == 4 && colInd[1] == 3,
        "arrays come back, twice changed");
  // 0 + 1 + 2: the second call found the first one's count in the buffer.
  CHECK(map[0] == 3 && map[1] == 4, "the work buffer kept its contents");
  std::printf("ok arrays read and written, the work buffer kept\n");
  // A library asking for more work buffer than rc-server keeps.
  CHECK(cusolverSpXcsrperm_bufferSizeHost(h, 2, 2, 0, descr, rowPtr, colInd, p,
                                          p,
                                          &bytes) == CUSOLVER_STATUS_SUCCESS &&
            bytes == size_t(2) << 30,
        "a huge work size");
  char other[16];
  CHECK(cusolverSpXcsrpermHost(h, 2, 2, 0, descr, rowPtr, colInd, p, p, map,
                               other) != CUSOLVER_STATUS_SUCCESS,
        "2 GiB of work buffer");
  std::printf("ok a work buffer past the session's bound is refused\n");
  CHECK(cusparseDestroyMatDescr(descr) == CUSPARSE_STATUS_SUCCESS,
        "destroy descriptor");
  CHECK(cusolverSpDestroy(h) == CUSOLVER_STATUS_SUCCESS, "destroy");
  std::printf("PASS\n");
  return 0;
}
