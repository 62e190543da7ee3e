// librc_cublas.so and librc_cuda.so, linked as an application links them,
// with no server: cuBLAS and driver calls fail like the runtime's.
#include <cublas_v2.h>
#include <cuda.h>

#include <gtest/gtest.h>

// Without a server cublasCreate fails as cuBLAS does without a usable CUDA
// runtime; calls on a handle that does not exist are refused; status strings
// are answered locally. (The compute calls are tested in test/unit/cublas.)
TEST(RuntimeLibs, CublasWithoutServer) {
  setenv("RC_SERVER", "", 1);
  cublasHandle_t h = nullptr;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cublasCreate_v2(&h), CUBLAS_STATUS_NOT_INITIALIZED);
  testing::internal::GetCapturedStderr();
  float alpha = 1, beta = 0;
  cublasHandle_t bogus = reinterpret_cast<cublasHandle_t>(0x1234);
  EXPECT_EQ(cublasGemmEx(bogus, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
                         nullptr, CUDA_R_32F, 4, nullptr, CUDA_R_32F, 4, &beta,
                         nullptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasSetStream_v2(bogus, nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasDestroy_v2(bogus), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STREQ(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED),
               "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(cublasLoggerConfigure(1, 1, 0, nullptr), CUBLAS_STATUS_SUCCESS);
}

TEST(RuntimeLibs, DriverCallsWithoutServer) {
  setenv("RC_SERVER", "", 1);
  int v = 0;
  EXPECT_EQ(cuDriverGetVersion(&v), CUDA_SUCCESS);
  EXPECT_EQ(v, 12040);
  const char *s = nullptr;
  EXPECT_EQ(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "out of memory");
  CUdevice d;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cuDeviceGet(&d, 0), CUDA_ERROR_NO_DEVICE);
  testing::internal::GetCapturedStderr();
}
