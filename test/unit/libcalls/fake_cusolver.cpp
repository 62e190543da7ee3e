// A stand-in for libcusolver.so.12 on the host test device (CI has no
// GPU and no cuSOLVER): the sparse API's handle and the permutation pair
// whose rows carry a work size (`z`), arrays read and written (`u`) and a
// host work buffer kept between calls (`w`). It permutes nothing: it adds
// one to the row offsets and column indices, counts its calls in the
// buffer and adds the count to `map`, so a test sees the arrays come back
// and the buffer persist. With fake_cusparse.cpp's matrix descriptors.
#include <cusolverSp.h>

#include <cstring>

struct cusolverSpContext {
  int unused;
};

extern "C" {

cusolverStatus_t cusolverSpCreate(cusolverSpHandle_t *h) {
  *h = new cusolverSpContext{};
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpDestroy(cusolverSpHandle_t h) {
  delete h;
  return CUSOLVER_STATUS_SUCCESS;
}

// An empty matrix asks for 2 GiB of work buffer: past what rc-server keeps
// for a session.
cusolverStatus_t cusolverSpXcsrperm_bufferSizeHost(cusolverSpHandle_t, int, int,
                                                   int nnz,
                                                   const cusparseMatDescr_t,
                                                   const int *, const int *,
                                                   const int *, const int *,
                                                   size_t *bufferSizeInBytes) {
  *bufferSizeInBytes = nnz ? 64 : size_t(2) << 30;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpXcsrpermHost(cusolverSpHandle_t, int m, int, int nnz,
                                        const cusparseMatDescr_t, int *rowPtr,
                                        int *colInd, const int *, const int *,
                                        int *map, void *buffer) {
  for (int i = 0; i <= m; ++i)
    ++rowPtr[i];
  int calls;
  std::memcpy(&calls, buffer, sizeof calls);
  ++calls;
  std::memcpy(buffer, &calls, sizeof calls);
  for (int i = 0; i < nnz; ++i)
    ++colInd[i], map[i] += calls;
  return CUSOLVER_STATUS_SUCCESS;
}

} // extern "C"
