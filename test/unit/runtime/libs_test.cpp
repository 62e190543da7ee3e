// librc_cublas.so and librc_cuda.so, linked as an application links them,
// with no server: handle calls work locally, compute calls refuse by name,
// driver queries fail like the runtime's.
#include <cublas_v2.h>
#include <cuda.h>

#include <gtest/gtest.h>

TEST(RuntimeLibs, CublasHandlesAndRefusedCompute) {
  cublasHandle_t h = nullptr;
  ASSERT_EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
  EXPECT_NE(h, nullptr);
  float alpha = 1, beta = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, nullptr,
                         CUDA_R_32F, 4, nullptr, CUDA_R_32F, 4, &beta, nullptr,
                         CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_NOT_SUPPORTED);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("remote-clang: cublasGemmEx is not supported by the "
                     "remote cuBLAS"),
            std::string::npos)
      << err;
  EXPECT_STREQ(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED),
               "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);
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
