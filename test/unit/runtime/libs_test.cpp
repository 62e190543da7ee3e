// librc_cublas.so, librc_cuda.so and the libraries of stubs (cuRAND,
// cuFFT, cuSPARSE, cuSOLVER, nvJPEG, nvJitLink, NPP), linked as an application
// links them, with no server: cuBLAS and driver calls fail like the runtime's;
// and the calls no library serves yet.
#include <channel_descriptor.h>
#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusolverRf.h>
#include <cusolverSp.h>
#include <cusparse.h>
#include <npp.h>
#include <nvJitLink.h>
#include <nvjpeg.h>

#include <gtest/gtest.h>

#include <string>

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
  // Versions and properties: the headers the client is built with.
  int major = 0, patch = -1;
  EXPECT_EQ(cublasGetProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
  EXPECT_EQ(cublasLtGetProperty(PATCH_LEVEL, &patch), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(patch, CUBLAS_VER_PATCH);
  EXPECT_EQ(cublasGetProperty(libraryPropertyType(9), &major),
            CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(cublasGetCudartVersion(), size_t(CUDART_VERSION));
  EXPECT_EQ(cublasLtGetVersion(), size_t(CUBLAS_VERSION));
  EXPECT_STREQ(cublasLtGetStatusName(CUBLAS_STATUS_ALLOC_FAILED),
               "CUBLAS_STATUS_ALLOC_FAILED");
  testing::internal::CaptureStderr();
  cublasXerbla("cublasSgemm", 4);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "** On entry to cublasSgemm parameter number 4 had an illegal "
            "value\n");
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

// Every function the CUDA headers declare links, also the ones remote-clang
// does not serve yet (runtime/gen_unsupported_stubs.py): they fail at the
// call, naming themselves, with each library's "not supported" status, and
// the runtime's also becomes the thread's last error.
TEST(RuntimeLibs, CallsNotServedYetLinkAndFailNamingThemselves) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaFreeMipmappedArray(nullptr), cudaErrorNotSupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
  CUmodule module = nullptr;
  CUdeviceptr global = 0;
  size_t globalSize = 0;
  EXPECT_EQ(cuModuleGetGlobal(&global, &globalSize, module, "table"),
            CUDA_ERROR_NOT_SUPPORTED);
  float x[4] = {}, packed[10] = {}, alpha = 1;
  EXPECT_EQ(
      cublasSspr(nullptr, CUBLAS_FILL_MODE_LOWER, 4, &alpha, x, 1, packed),
      CUBLAS_STATUS_NOT_SUPPORTED);
  // cublasXt and what cuBLASLt serves no row for link too.
  cublasXtHandle_t xt = nullptr;
  EXPECT_EQ(cublasXtCreate(&xt), CUBLAS_STATUS_NOT_SUPPORTED);
  cublasLtMatrixTransformDesc_t transform = nullptr;
  EXPECT_EQ(cublasLtMatrixTransformDescCreate(&transform, CUDA_R_32F),
            CUBLAS_STATUS_NOT_SUPPORTED);
  // cuRAND's host API is served (docs/libraries.md) but for the discrete
  // distributions of its device API.
  curandDiscreteDistribution_t poisson = nullptr;
  EXPECT_EQ(curandCreatePoissonDistribution(2.0, &poisson),
            CURAND_STATUS_INTERNAL_ERROR);
  // cuFFT: a library of stubs only so far; cuSPARSE and cuSOLVER beyond
  // their rows.
  cufftHandle plan = 0;
  EXPECT_EQ(cufftPlan1d(&plan, 64, CUFFT_C2C, 1), CUFFT_NOT_SUPPORTED);
  cusparseSpMatDescr_t coo = nullptr;
  EXPECT_EQ(cusparseCreateCoo(&coo, 4, 4, 0, nullptr, nullptr, nullptr,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                              CUDA_R_32F),
            CUSPARSE_STATUS_NOT_SUPPORTED);
  cusolverRfHandle_t refactor = nullptr;
  EXPECT_EQ(cusolverRfCreate(&refactor), CUSOLVER_STATUS_NOT_SUPPORTED);
  nvjpegHandle_t jpeg = nullptr;
  EXPECT_EQ(nvjpegCreateSimple(&jpeg),
            NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED);
  nvJitLinkHandle link = nullptr;
  const char *opts[] = {"-arch=sm_90"};
  EXPECT_EQ(nvJitLinkCreate(&link, 1, opts), NVJITLINK_ERROR_INTERNAL);
  // NPP's eleven libraries are one of stubs (nppc and nppif here).
  EXPECT_EQ(nppSetStream(nullptr), NPP_NOT_SUPPORTED_MODE_ERROR);
  Npp32u bufferBytes = 0;
  EXPECT_EQ(nppiFilterMedianGetBufferSize_8u_C1R(NppiSize{8, 8}, NppiSize{3, 3},
                                                 &bufferBytes),
            NPP_NOT_SUPPORTED_MODE_ERROR);
  std::string err = testing::internal::GetCapturedStderr();
  for (const char *line :
       {"remote-clang: cudaFreeMipmappedArray is not supported by the remote "
        "runtime",
        "remote-clang: cuModuleGetGlobal_v2 is not supported by the remote "
        "driver library",
        "remote-clang: cublasSspr_v2 is not supported by the remote cuBLAS",
        "remote-clang: cublasXtCreate is not supported by the remote cuBLAS",
        "remote-clang: cublasLtMatrixTransformDescCreate is not supported by "
        "the remote cuBLAS",
        "remote-clang: curandCreatePoissonDistribution is not supported by "
        "the remote cuRAND host API",
        "remote-clang: cufftPlan1d is not supported by the remote cuFFT",
        "remote-clang: cusparseCreateCoo is not supported by the remote "
        "cuSPARSE",
        "remote-clang: cusolverRfCreate is not supported by the remote "
        "cuSOLVER",
        "remote-clang: nvjpegCreateSimple is not supported by the remote "
        "nvJPEG",
        "remote-clang: nvJitLinkCreate is not supported by the remote "
        "nvJitLink",
        "remote-clang: nppSetStream is not supported by the remote NPP"})
    EXPECT_NE(err.find(line), std::string::npos) << line << " in:\n" << err;
}

// A declared function with no status to fail through stops the program at
// the call, named.
// cudaCreateChannelDesc is a value made here, no server needed.
TEST(RuntimeLibs, ChannelDescriptionsAreLocal) {
  cudaChannelFormatDesc d =
      cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindSigned);
  EXPECT_EQ(d.x, 16);
  EXPECT_EQ(d.y, 16);
  EXPECT_EQ(d.z, 0);
  EXPECT_EQ(d.f, cudaChannelFormatKindSigned);
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float4>();
  EXPECT_EQ(f.w, 32);
  EXPECT_EQ(f.f, cudaChannelFormatKindFloat);
}

// The runtime library has none left (cudaCreateChannelDesc was the last):
// cuBLASLt's CPU instruction mask returns the mask it replaced.
TEST(RuntimeLibsDeathTest, CallsNotServedYetWithoutAStatusStopNamed) {
  EXPECT_DEATH(cublasLtDisableCpuInstructionsSetMask(0),
               "remote-clang: cublasLtDisableCpuInstructionsSetMask is not "
               "supported by the remote cuBLAS");
}
