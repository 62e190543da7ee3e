// rc-server's cuBLAS commands, in process over in-memory connections: every
// call shape ggml-cuda uses, with numbers checked against a CPU reference,
// and the validation of handles, device ranges and pointer-array contents.
// Built twice: on the host test device (CI) and, with RC_CUBLAS_TEST_GPU=1,
// on the CUDA backend through the real libcublas (label gpu; skipped where
// there is no GPU). Inputs are small multiples of 1/4, exact in F16, BF16 and
// TF32, so every compute type must give the reference up to rounding.
#include "graph_test_util.h"
#include "manifest_generated.h"
#include "rc/kernel_id.h"
#include "rc/manifest_file.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <unistd.h>

#ifndef RC_CUBLAS_TEST_GPU
#define RC_CUBLAS_TEST_GPU 0
#endif

using namespace rc::server;
using namespace rc::server::test;

namespace {

namespace fb = flatbuffers;

// cuBLAS / CUDA enum values (cublas_api.h, library_types.h).
constexpr int kR32F = 0, kR64F = 1, kR16F = 2, kR16BF = 14;
constexpr int kCompute16F = 64, kCompute32F = 68, kCompute64F = 70,
              kCompute32FFastTF32 = 77;
constexpr uint32_t kDefaultMath = 0, kTF32Math = 3;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kAlgoDefault = -1, kAlgoTensorOp = 99;

// A manifest without modules: these tests launch no kernels.
std::pair<std::string, uint64_t> emptyManifest() {
  fb::FlatBufferBuilder fbb;
  std::vector<fb::Offset<rc::manifest::Module>> mods;
  std::vector<fb::Offset<rc::manifest::Kernel>> ks;
  std::vector<fb::Offset<rc::manifest::Variable>> vs;
  fbb.Finish(rc::manifest::CreateManifestDirect(fbb, 1, &mods, &ks, &vs),
             "RCMF");
  char dir[] = "/tmp/rc-cublas-test-XXXXXX";
  if (!mkdtemp(dir))
    throw std::runtime_error("mkdtemp failed");
  std::string path = std::string(dir) + "/empty.rcm", error;
  if (!rc::writeFile(path, fbb.GetBufferPointer(), fbb.GetSize(), &error))
    throw std::runtime_error(error);
  return {path, rc::fnv1a64(fbb.GetBufferPointer(), fbb.GetSize())};
}

// ---- element encodings (independent of the server's) --------------------
uint16_t toHalf(float f) {
  _Float16 h = _Float16(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
float fromHalf(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return float(h);
}
uint16_t toBf16(float f) { // inputs are exact in bf16: truncation suffices
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return uint16_t(x >> 16);
}
float fromBf16(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

size_t typeSize(int t) { return t == kR64F ? 8 : t == kR32F ? 4 : 2; }

Bytes encode(const std::vector<float> &v, int type) {
  Bytes out(v.size() * typeSize(type));
  for (size_t i = 0; i < v.size(); ++i) {
    if (type == kR32F) {
      std::memcpy(&out[i * 4], &v[i], 4);
    } else if (type == kR64F) {
      double d = v[i];
      std::memcpy(&out[i * 8], &d, 8);
    } else {
      uint16_t h = type == kR16F ? toHalf(v[i]) : toBf16(v[i]);
      std::memcpy(&out[i * 2], &h, 2);
    }
  }
  return out;
}

std::vector<float> decode(const uint8_t *p, size_t count, int type) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) {
    if (type == kR32F) {
      std::memcpy(&v[i], p + i * 4, 4);
    } else if (type == kR64F) {
      double d;
      std::memcpy(&d, p + i * 8, 8);
      v[i] = float(d);
    } else {
      uint16_t h;
      std::memcpy(&h, p + i * 2, 2);
      v[i] = type == kR16F ? fromHalf(h) : fromBf16(h);
    }
  }
  return v;
}

std::vector<float> quarters(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float &x : v)
    x = float(int(rng() % 17) - 8) / 4.0f; // -2 .. 2 in steps of 1/4
  return v;
}

// Column-major reference: C = alpha op(A) op(B) + beta C.
void refGemm(int ta, int tb, int m, int n, int k, float alpha, const float *A,
             int lda, const float *B, int ldb, float beta, float *C, int ldc) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += double(ta == kOpN ? A[i + l * lda] : A[l + i * lda]) *
             double(tb == kOpN ? B[l + j * ldb] : B[j + l * ldb]);
      C[i + j * ldc] =
          float(alpha * s + (beta != 0 ? beta * C[i + j * ldc] : 0));
    }
}

Bytes u64s(const std::vector<uint64_t> &v) {
  Bytes b(v.size() * 8);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// ---- cuBLAS wire commands ----------------------------------------------
Cmd cCreate(uint64_t h) {
  return [=](fb::FlatBufferBuilder &fbb) {
    return wire::CreateCommandEntry(fbb, wire::Command::CublasCreate,
                                    wire::CreateCublasCreate(fbb, h).Union());
  };
}
Cmd cDestroy(uint64_t h) {
  return [=](fb::FlatBufferBuilder &fbb) {
    return wire::CreateCommandEntry(fbb, wire::Command::CublasDestroy,
                                    wire::CreateCublasDestroy(fbb, h).Union());
  };
}
Cmd cWorkspace(uint64_t h, uint64_t addr, uint64_t size) {
  return [=](fb::FlatBufferBuilder &fbb) {
    return wire::CreateCommandEntry(
        fbb, wire::Command::CublasSetWorkspace,
        wire::CreateCublasSetWorkspace(fbb, h, addr, size).Union());
  };
}

struct Gemm {
  wire::CublasGemmApi api = wire::CublasGemmApi::GemmEx;
  uint64_t handle = 1, stream = 0;
  uint32_t mathMode = kDefaultMath;
  int ta = kOpN, tb = kOpN, m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  wire::CublasOperand a, b, c;
  int batch = 1, compute = kCompute32F, algo = kAlgoDefault;
  size_t scalarBytes = 0; // tests: send scalars of this size instead
  // CUBLAS_POINTER_MODE_DEVICE: alpha and beta at these device addresses.
  uint64_t deviceAlpha = 0, deviceBeta = 0;
};
Cmd cGemm(const Gemm &g) {
  return [=](fb::FlatBufferBuilder &fbb) {
    Bytes al, be;
    if (g.compute == kCompute16F) {
      uint16_t a = toHalf(g.alpha), b = toHalf(g.beta);
      al.assign((uint8_t *)&a, (uint8_t *)&a + 2);
      be.assign((uint8_t *)&b, (uint8_t *)&b + 2);
    } else if (g.compute == kCompute64F) {
      double a = g.alpha, b = g.beta;
      al.assign((uint8_t *)&a, (uint8_t *)&a + 8);
      be.assign((uint8_t *)&b, (uint8_t *)&b + 8);
    } else {
      al.assign((const uint8_t *)&g.alpha, (const uint8_t *)&g.alpha + 4);
      be.assign((const uint8_t *)&g.beta, (const uint8_t *)&g.beta + 4);
    }
    if (g.scalarBytes)
      al.resize(g.scalarBytes), be.resize(g.scalarBytes);
    bool onDevice = g.deviceAlpha || g.deviceBeta;
    if (onDevice) {
      al.assign((const uint8_t *)&g.deviceAlpha,
                (const uint8_t *)&g.deviceAlpha + 8);
      be.assign((const uint8_t *)&g.deviceBeta,
                (const uint8_t *)&g.deviceBeta + 8);
    }
    auto av = fbb.CreateVector(al), bv = fbb.CreateVector(be);
    return wire::CreateCommandEntry(
        fbb, wire::Command::CublasGemm,
        wire::CreateCublasGemm(fbb, g.api, g.handle, g.stream, g.mathMode, g.ta,
                               g.tb, g.m, g.n, g.k, av, bv, &g.a, &g.b, &g.c,
                               g.batch, g.compute, g.algo, onDevice)
            .Union());
  };
}

wire::CublasOperand op(uint64_t p, int64_t ld, int type, int64_t stride = 0) {
  return wire::CublasOperand(p, ld, stride, type);
}

// A row's call (rc/lib_call.h): `args` its encoded parameters.
Cmd cLibCall(const std::string &row, const Bytes &args,
             bool scalarsOnDevice = false) {
  return [=](fb::FlatBufferBuilder &fbb) {
    auto f = fbb.CreateString(row);
    auto a = fbb.CreateVector(args);
    return wire::CreateCommandEntry(
        fbb, wire::Command::LibCall,
        wire::CreateLibCall(fbb, f, a, scalarsOnDevice).Union());
  };
}

// Appends the bytes of `v` (a row's fixed part is each parameter's bytes).
template <class T> void put(Bytes &to, T v) {
  to.insert(to.end(), (const uint8_t *)&v, (const uint8_t *)&v + sizeof v);
}

// A pointer-array GEMM: its data and arrays (uploaded by `upload`, the
// first command to run) and the expected C.
struct PointerArrayCase {
  Gemm g;
  std::vector<uint64_t> ptrs; // the arrays' contents: A, B, C
  Cmd upload;
  uint64_t c = 0;
  std::vector<float> C;
};

// A small GEMM as ggml's F32 mul_mat makes it (T, N), on uploaded data:
// its command and C = alpha op(A) op(B), C's address holding NaNs.
struct TnGemmCase {
  Gemm g;
  uint64_t c = 0;
  std::vector<float> C;
};

class CublasSession : public ::testing::Test {
protected:
  PointerArrayCase pointerArrayCase(int seed);
  TnGemmCase tnGemmCase(float alpha, unsigned seed) {
    const int m = 8, n = 4, k = 8;
    auto A = quarters(size_t(k) * m, seed),
         B = quarters(size_t(k) * n, seed + 1);
    TnGemmCase t;
    t.C.assign(size_t(m) * n, 0);
    refGemm(kOpT, kOpN, m, n, k, alpha, A.data(), k, B.data(), k, 0, t.C.data(),
            m);
    uint64_t a = upload(A, kR32F), b = upload(B, kR32F);
    t.c = upload(std::vector<float>(t.C.size(), NAN), kR32F);
    t.g.ta = kOpT, t.g.m = m, t.g.n = n, t.g.k = k;
    t.g.a = op(a, k, kR32F), t.g.b = op(b, k, kR32F), t.g.c = op(t.c, m, kR32F);
    return t;
  }
  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    auto mh = emptyManifest();
    hash_ = mh.second;
    ServerOptions o;
    o.manifests = {mh.first};
    o.testDevice = !RC_CUBLAS_TEST_GPU;
    std::string err;
    if (!core_.start(o, &err)) {
      if (RC_CUBLAS_TEST_GPU && noUsableGpu(err))
        GTEST_SKIP() << "no usable GPU here: " << err;
      FAIL() << err;
    }
    auto ends = memPair();
    core_.serve(std::move(ends.second));
    conn_ = std::move(ends.first);
    Bytes r = roundTrip(hello({hash_}));
    const wire::HelloReply *hr = asHelloReply(r);
    ASSERT_TRUE(hr && hr->ok());
  }

  Bytes roundTrip(const Bytes &msg) {
    return rc::server::test::roundTrip(*conn_, msg, 60000);
  }

  // Runs one batch; returns the first error message ("" when none).
  std::string run(const std::vector<Cmd> &cmds, Bytes *reply = nullptr) {
    Bytes r = roundTrip(batch(seq_++, cmds));
    const wire::BatchReply *br = asBatchReply(r);
    EXPECT_NE(br, nullptr);
    if (reply)
      *reply = r;
    if (br && br->errors() && br->errors()->size())
      return br->errors()->Get(0)->message()->str();
    return "";
  }

  uint64_t alloc(uint64_t size) {
    Bytes r;
    EXPECT_EQ(run({cMalloc(size)}, &r), "");
    const wire::Result *res = resultAt(asBatchReply(r), 0);
    return res ? res->addr() : 0;
  }

  uint64_t upload(const std::vector<float> &v, int type) {
    Bytes data = encode(v, type);
    uint64_t p = alloc(data.size());
    EXPECT_EQ(run({cH2D(p, data)}), "");
    return p;
  }

  // Runs `cmds` then reads `count` elements of `type` at `addr`.
  std::vector<float> runAndRead(const std::vector<Cmd> &cmds, uint64_t addr,
                                size_t count, int type) {
    std::vector<Cmd> all = cmds;
    all.push_back(cD2H(addr, count * typeSize(type)));
    Bytes r;
    std::string err = run(all, &r);
    EXPECT_EQ(err, "");
    const wire::Result *res =
        resultAt(asBatchReply(r), uint32_t(all.size() - 1));
    if (!res || !res->payload())
      return {};
    return decode(res->payload()->data(), count, type);
  }

  static void expectNear(const std::vector<float> &got,
                         const std::vector<float> &want, float tol = 1e-3f) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i])))
          << "element " << i;
  }

  uint64_t hash_ = 0;
  uint64_t seq_ = 1;
  ServerCore core_;
  std::unique_ptr<MemConnection> conn_;
};

// ggml_cuda_mul_mat_cublas, F32, one matrix: cublasSgemm(T, N) with TF32
// math as ggml sets it.
TEST_F(CublasSession, SgemmTransposedAsGgml) {
  const int m = 24, n = 5, k = 16; // ne01, ne11, ne10
  auto A = quarters(size_t(k) * m, 1), B = quarters(size_t(k) * n, 2);
  std::vector<float> C(size_t(m) * n, 0);
  refGemm(kOpT, kOpN, m, n, k, 1, A.data(), k, B.data(), k, 0, C.data(), m);
  uint64_t a = upload(A, kR32F), b = upload(B, kR32F);
  uint64_t c = upload(std::vector<float>(C.size(), NAN), kR32F);
  uint64_t ws = alloc(1 << 20);
  Gemm g;
  g.api = wire::CublasGemmApi::Sgemm;
  g.mathMode = kTF32Math;
  g.ta = kOpT, g.m = m, g.n = n, g.k = k;
  g.a = op(a, k, kR32F), g.b = op(b, k, kR32F), g.c = op(c, m, kR32F);
  expectNear(runAndRead({cCreate(1), cWorkspace(1, ws, 1 << 20), cGemm(g)}, c,
                        C.size(), kR32F),
             C);
}

// F16 weights: cublasGemmEx with F16 in, F32 out, compute 32F (ggml's
// prefer_f32_output path) and F16 out with compute 16F.
TEST_F(CublasSession, GemmExHalfInputs) {
  const int m = 16, n = 3, k = 8;
  auto A = quarters(size_t(k) * m, 3), B = quarters(size_t(k) * n, 4);
  std::vector<float> C(size_t(m) * n, 0);
  refGemm(kOpT, kOpN, m, n, k, 1, A.data(), k, B.data(), k, 0, C.data(), m);
  uint64_t a = upload(A, kR16F), b = upload(B, kR16F);
  uint64_t c32 = alloc(C.size() * 4), c16 = alloc(C.size() * 2);
  Gemm g;
  g.ta = kOpT, g.m = m, g.n = n, g.k = k, g.algo = kAlgoTensorOp;
  g.a = op(a, k, kR16F), g.b = op(b, k, kR16F), g.c = op(c32, m, kR32F);
  expectNear(runAndRead({cCreate(1), cGemm(g)}, c32, C.size(), kR32F), C);
  g.c = op(c16, m, kR16F);
  g.compute = kCompute16F;
  expectNear(runAndRead({cGemm(g)}, c16, C.size(), kR16F), C);
}

TEST_F(CublasSession, GemmExBf16InputsF32Output) {
  const int m = 8, n = 4, k = 12;
  auto A = quarters(size_t(k) * m, 5), B = quarters(size_t(k) * n, 6);
  std::vector<float> C(size_t(m) * n, 0);
  refGemm(kOpT, kOpN, m, n, k, 1, A.data(), k, B.data(), k, 0, C.data(), m);
  uint64_t a = upload(A, kR16BF), b = upload(B, kR16BF),
           c = alloc(C.size() * 4);
  Gemm g;
  g.ta = kOpT, g.m = m, g.n = n, g.k = k, g.algo = kAlgoTensorOp;
  g.a = op(a, k, kR16BF), g.b = op(b, k, kR16BF), g.c = op(c, m, kR32F);
  expectNear(runAndRead({cCreate(1), cGemm(g)}, c, C.size(), kR32F), C);
}

// librc_cublas sends cublasDgemm (and its batched forms) as cublasGemmEx
// with 64F types and compute: the server must run it, scalars as doubles.
TEST_F(CublasSession, GemmExDoubleAsDgemm) {
  const int m = 9, n = 4, k = 6;
  auto A = quarters(size_t(m) * k, 21), B = quarters(size_t(k) * n, 22);
  std::vector<float> C = quarters(size_t(m) * n, 23);
  uint64_t a = upload(A, kR64F), b = upload(B, kR64F), c = upload(C, kR64F);
  refGemm(kOpN, kOpN, m, n, k, 2, A.data(), m, B.data(), k, 0.5f, C.data(), m);
  Gemm g;
  g.m = m, g.n = n, g.k = k, g.alpha = 2, g.beta = 0.5f;
  g.compute = kCompute64F;
  g.a = op(a, m, kR64F), g.b = op(b, k, kR64F), g.c = op(c, m, kR64F);
  expectNear(runAndRead({cCreate(1), cGemm(g)}, c, C.size(), kR64F), C);
}

// Several matrices contiguous in dims 2/3: cublasGemmStridedBatchedEx, with
// beta = 1 accumulating into C, and TF32 compute on F32.
TEST_F(CublasSession, GemmStridedBatchedEx) {
  const int m = 8, n = 4, k = 8, batch = 3;
  const int64_t sa = m * k, sb = k * n + 4, sc = m * n; // B has gaps
  auto A = quarters(size_t(sa) * batch, 7), B = quarters(size_t(sb) * batch, 8);
  auto C = quarters(size_t(sc) * batch, 9);
  uint64_t a = upload(A, kR32F), b = upload(B, kR32F), c = upload(C, kR32F);
  for (int i = 0; i < batch; ++i)
    refGemm(kOpT, kOpN, m, n, k, 0.5f, A.data() + i * sa, k, B.data() + i * sb,
            k, 1, C.data() + i * sc, m);
  Gemm g;
  g.api = wire::CublasGemmApi::GemmStridedBatchedEx;
  g.ta = kOpT, g.m = m, g.n = n, g.k = k, g.alpha = 0.5f, g.beta = 1;
  g.compute = kCompute32FFastTF32, g.batch = batch;
  g.a = op(a, k, kR32F, sa), g.b = op(b, k, kR32F, sb);
  g.c = op(c, m, kR32F, sc);
  expectNear(runAndRead({cCreate(1), cGemm(g)}, c, C.size(), kR32F), C);
}

// Broadcast batches: cublasGemmBatchedEx with device arrays of pointers
// (A repeated for two B matrices, as ggml's r2 > 1).
PointerArrayCase CublasSession::pointerArrayCase(int seed) {
  const int m = 8, n = 2, k = 4;
  auto A = quarters(size_t(k) * m, seed),
       B = quarters(size_t(k) * n * 2, seed + 1);
  PointerArrayCase pc;
  pc.C.assign(size_t(m) * n * 2, 0);
  for (int i = 0; i < 2; ++i)
    refGemm(kOpT, kOpN, m, n, k, 1, A.data(), k, B.data() + i * k * n, k, 0,
            pc.C.data() + i * m * n, m);
  uint64_t a = upload(A, kR16F), b = upload(B, kR16F);
  pc.c = alloc(pc.C.size() * 4);
  uint64_t arrays = alloc(6 * 8);
  pc.ptrs = {
      a, a, b, b + uint64_t(k * n) * 2, pc.c, pc.c + uint64_t(m * n) * 4};
  pc.upload = cH2D(arrays, u64s(pc.ptrs));
  Gemm &g = pc.g;
  g.api = wire::CublasGemmApi::GemmBatchedEx;
  g.ta = kOpT, g.m = m, g.n = n, g.k = k, g.batch = 2;
  g.a = op(arrays, k, kR16F), g.b = op(arrays + 16, k, kR16F);
  g.c = op(arrays + 32, m, kR32F);
  return pc;
}

TEST_F(CublasSession, GemmBatchedExPointerArrays) {
  PointerArrayCase pc = pointerArrayCase(10);
  expectNear(runAndRead({pc.upload, cCreate(1), cGemm(pc.g)}, pc.c, pc.C.size(),
                        kR32F),
             pc.C);
}

// ggml keeps its cuBLAS handles for the whole process but destroys and
// creates streams (test-backend-ops does so for every backend it makes): a
// pointer-array GEMM on a new stream after the old one is gone must not
// touch the old one (on the GPU that was a use-after-free in
// cuStreamSynchronize that took rc-server down).
TEST_F(CublasSession, PointerArrayGemmOnANewStreamAfterTheOldOneIsDestroyed) {
  PointerArrayCase pc = pointerArrayCase(20);
  Gemm &g = pc.g;
  g.stream = 0x51;
  ASSERT_EQ(run({pc.upload, cCreate(1), cStreamCreate(0x51), cGemm(g),
                 cStreamDestroy(0x51)}),
            "");
  g.stream = 0x52; // the scratch was last used on the destroyed 0x51
  expectNear(
      runAndRead({cStreamCreate(0x52), cGemm(g)}, pc.c, pc.C.size(), kR32F),
      pc.C);
  EXPECT_EQ(run({cStreamDestroy(0x52), cDestroy(1)}), "");
}

// ggml's out_prod: cublasSgemmStridedBatched / cublasSgemmBatched (N, T).
TEST_F(CublasSession, SgemmBatchedVariantsOutProd) {
  const int m = 6, n = 5, k = 3, batch = 2; // ne0, ne1, ne01
  auto A = quarters(size_t(m) * k * batch, 12);
  auto B = quarters(size_t(n) * k * batch, 13);
  std::vector<float> C(size_t(m) * n * batch, 0);
  for (int i = 0; i < batch; ++i)
    refGemm(kOpN, kOpT, m, n, k, 1, A.data() + i * m * k, m,
            B.data() + i * n * k, n, 0, C.data() + i * m * n, m);
  uint64_t a = upload(A, kR32F), b = upload(B, kR32F), c = alloc(C.size() * 4);
  Gemm g;
  g.api = wire::CublasGemmApi::SgemmStridedBatched;
  g.tb = kOpT, g.m = m, g.n = n, g.k = k, g.batch = batch;
  g.a = op(a, m, kR32F, m * k), g.b = op(b, n, kR32F, n * k);
  g.c = op(c, m, kR32F, m * n);
  expectNear(runAndRead({cCreate(1), cGemm(g)}, c, C.size(), kR32F), C);

  uint64_t c2 = alloc(C.size() * 4), arrays = alloc(6 * 8);
  std::vector<uint64_t> ptrs = {a,  a + uint64_t(m * k) * 4,
                                b,  b + uint64_t(n * k) * 4,
                                c2, c2 + uint64_t(m * n) * 4};
  g.api = wire::CublasGemmApi::SgemmBatched;
  g.a = op(arrays, m, kR32F), g.b = op(arrays + 16, n, kR32F);
  g.c = op(arrays + 32, m, kR32F);
  expectNear(
      runAndRead({cH2D(arrays, u64s(ptrs)), cGemm(g)}, c2, C.size(), kR32F), C);
}

// ggml's solve_tri: cublasStrsmBatched(RIGHT, UPPER, N, NON_UNIT), X A = B.
TEST_F(CublasSession, StrsmBatchedRightUpper) {
  const int m = 3, n = 4, batch = 2; // B is m x n, A is n x n
  std::vector<float> A(size_t(n) * n * batch, 0),
      X = quarters(m * n * batch, 14);
  for (int bi = 0; bi < batch; ++bi)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= j; ++i)
        A[bi * n * n + i + j * n] = i == j ? 2.0f + bi : 0.25f * (i + j);
  // B = X * A, so solving must give X back.
  std::vector<float> B(X.size(), 0);
  for (int bi = 0; bi < batch; ++bi)
    refGemm(kOpN, kOpN, m, n, n, 1, X.data() + bi * m * n, m,
            A.data() + bi * n * n, n, 0, B.data() + bi * m * n, m);
  uint64_t a = upload(A, kR32F), b = upload(B, kR32F), arrays = alloc(4 * 8);
  std::vector<uint64_t> ptrs = {a, a + uint64_t(n * n) * 4, b,
                                b + uint64_t(m * n) * 4};
  Cmd trsm = [=](fb::FlatBufferBuilder &fbb) {
    return wire::CreateCommandEntry(
        fbb, wire::Command::CublasTrsmBatched,
        wire::CreateCublasTrsmBatched(fbb, 1, 0, kDefaultMath, /*right*/ 1,
                                      /*upper*/ 1, kOpN, /*non-unit*/ 0, m, n,
                                      1.0f, arrays, n, arrays + 16, m, batch)
            .Union());
  };
  expectNear(runAndRead({cH2D(arrays, u64s(ptrs)), cCreate(1), trsm}, b,
                        B.size(), kR32F),
             X);
}

// getrfBatched then getriBatched in double: P*A = L*U for a regular matrix,
// info names the zero pivot of a singular one, and A times the inverse
// getri makes is the identity. Checked by reconstruction, so any valid
// choice between equal pivots passes.
TEST_F(CublasSession, DgetrfAndGetriBatched) {
  const int n = 4, batch = 2;
  std::vector<float> A = quarters(size_t(n) * n * batch, 21);
  for (int i = 0; i < n; ++i) {
    A[size_t(i + i * n)] += 3.0f;        // matrix 0: regular
    A[size_t(n * n + i + 2 * n)] = 0.0f; // matrix 1: column 2 is zero
  }
  uint64_t a = upload(A, kR64F), arrays = alloc(2 * 8),
           pivots = alloc(uint64_t(n) * batch * 4), info = alloc(batch * 4);
  std::vector<uint64_t> ptrs = {a, a + uint64_t(n * n) * 8};
  auto lu = [&](bool inverse, uint64_t c, int count) -> Cmd {
    return [=](fb::FlatBufferBuilder &fbb) {
      return wire::CreateCommandEntry(
          fbb, wire::Command::CublasLuBatched,
          wire::CreateCublasLuBatched(fbb, 1, 0, kDefaultMath, inverse, kR64F,
                                      n, arrays, n, pivots, c, n, info, count)
              .Union());
    };
  };
  std::vector<float> LU =
      runAndRead({cH2D(arrays, u64s(ptrs)), cCreate(1), lu(false, 0, batch)}, a,
                 A.size(), kR64F);
  ASSERT_EQ(LU.size(), A.size());
  auto ints = [&](uint64_t addr, size_t count) {
    std::vector<float> raw = runAndRead({}, addr, count, kR32F);
    std::vector<int> out(count);
    std::memcpy(out.data(), raw.data(), count * 4);
    return out;
  };
  std::vector<int> infos = ints(info, batch), piv = ints(pivots, n);
  EXPECT_EQ(infos[0], 0);
  EXPECT_EQ(infos[1], 3) << "U(2,2) of the singular matrix is zero";
  // P*A from the pivots (row k exchanged with row piv[k]-1, in order).
  std::vector<double> PA(A.begin(), A.begin() + n * n);
  for (int k = 0; k < n; ++k) {
    ASSERT_GE(piv[size_t(k)], k + 1);
    ASSERT_LE(piv[size_t(k)], n);
    for (int j = 0; j < n; ++j)
      std::swap(PA[size_t(k + j * n)], PA[size_t(piv[size_t(k)] - 1 + j * n)]);
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int k = 0; k <= std::min(i, j); ++k)
        sum += (k == i ? 1.0 : double(LU[size_t(i + k * n)])) *
               double(LU[size_t(k + j * n)]);
      EXPECT_NEAR(sum, PA[size_t(i + j * n)], 1e-4) << i << "," << j;
    }

  // getri of matrix 0 (its factors and pivots as getrf left them).
  uint64_t inv = alloc(uint64_t(n) * n * 8), cArrays = alloc(8);
  std::vector<float> C =
      runAndRead({cH2D(cArrays, u64s({inv})), lu(true, cArrays, 1)}, inv,
                 size_t(n) * n, kR64F);
  ASSERT_EQ(C.size(), size_t(n) * n);
  EXPECT_EQ(ints(info, 1)[0], 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int k = 0; k < n; ++k)
        sum += double(A[size_t(i + k * n)]) * double(C[size_t(k + j * n)]);
      EXPECT_NEAR(sum, i == j ? 1.0 : 0.0, 1e-4) << i << "," << j;
    }
}

// getrf/getri refuse what cuBLAS would and what lies outside the session.
TEST_F(CublasSession, LuBatchedIsChecked) {
  uint64_t a = alloc(4 * 4 * 8), arrays = alloc(8), info = alloc(4);
  auto lu = [&](int type, int n, int64_t lda, uint64_t pivots,
                uint64_t infoAt) -> Cmd {
    return [=](fb::FlatBufferBuilder &fbb) {
      return wire::CreateCommandEntry(
          fbb, wire::Command::CublasLuBatched,
          wire::CreateCublasLuBatched(fbb, 1, 0, kDefaultMath, false, type, n,
                                      arrays, lda, pivots, 0, 0, infoAt, 1)
              .Union());
    };
  };
  ASSERT_EQ(run({cH2D(arrays, u64s({a})), cCreate(1)}), "");
  EXPECT_NE(run({lu(kR16F, 4, 4, 0, info)}).find("cudaDataType"),
            std::string::npos);
  EXPECT_NE(run({lu(kR64F, 4, 3, 0, info)}).find("lda"), std::string::npos);
  EXPECT_NE(run({lu(kR64F, 4, 4, 0, info + 4096)}).find("info"),
            std::string::npos);
  EXPECT_NE(run({lu(kR64F, 4, 4, a + 4 * 4 * 8 - 8, info)}).find("pivots"),
            std::string::npos)
      << "16 bytes of pivots from 8 before the end";
  EXPECT_NE(run({lu(kR64F, 5, 5, 0, info)}).find("A[0]"), std::string::npos)
      << "a 5 x 5 matrix in 128 bytes";
  EXPECT_EQ(run({lu(kR64F, 4, 4, 0, info)}), "");
}

// ---- validation ------------------------------------------------------------

TEST_F(CublasSession, RangesOutsideAllocationsNameTheCall) {
  const int m = 8, n = 4, k = 8;
  uint64_t a = alloc(m * k * 4), b = alloc(k * n * 4), c = alloc(m * n * 4);
  Gemm g;
  g.ta = kOpT, g.m = m, g.n = n, g.k = k;
  g.a = op(a, k, kR32F), g.b = op(b, k, kR32F), g.c = op(c, m, kR32F);
  ASSERT_EQ(run({cCreate(1), cGemm(g)}), "");
  // C one element too small for ldc = m + 1.
  g.c = op(c, m + 1, kR32F);
  std::string e = run({cGemm(g)});
  EXPECT_NE(e.find("cublasGemmEx: C range"), std::string::npos) << e;
  // A strided batch running past the end of A.
  g.c = op(c, m, kR32F);
  g.api = wire::CublasGemmApi::GemmStridedBatchedEx;
  g.batch = 2, g.a = op(a, k, kR32F, m * k);
  e = run({cGemm(g)});
  EXPECT_NE(e.find("cublasGemmStridedBatchedEx: A range"), std::string::npos)
      << e;
  // A wild pointer.
  g.api = wire::CublasGemmApi::Sgemm;
  g.batch = 1, g.b = op(0x10, k, kR32F);
  e = run({cGemm(g)});
  EXPECT_NE(e.find("cublasSgemm_v2: B range 0x10"), std::string::npos) << e;
  // lda smaller than the rows of A.
  g.b = op(b, k, kR32F), g.a = op(a, k - 1, kR32F);
  e = run({cGemm(g)});
  EXPECT_NE(e.find("cublasSgemm_v2: lda = 7"), std::string::npos) << e;
}

TEST_F(CublasSession, PointerArrayContentsAreChecked) {
  const int m = 4, n = 4, k = 4;
  uint64_t mat = alloc(m * k * 4), arrays = alloc(6 * 8);
  Gemm g;
  g.api = wire::CublasGemmApi::GemmBatchedEx;
  g.m = m, g.n = n, g.k = k, g.batch = 2;
  g.a = op(arrays, m, kR32F), g.b = op(arrays + 16, k, kR32F);
  g.c = op(arrays + 32, m, kR32F);
  // Element 1 of A points at host-looking memory.
  std::vector<uint64_t> ptrs = {mat, 0x7fff0000, mat, mat, mat, mat};
  std::string e = run({cH2D(arrays, u64s(ptrs)), cCreate(1), cGemm(g)});
  EXPECT_NE(e.find("cublasGemmBatchedEx: A[1] = 0x7fff0000"), std::string::npos)
      << e;
  // The last matrix of C starts inside but runs past the allocation.
  ptrs = {mat, mat, mat, mat, mat, mat + 4};
  e = run({cH2D(arrays, u64s(ptrs)), cGemm(g)});
  EXPECT_NE(e.find("C[1]"), std::string::npos) << e;
  // The array itself is too short for the batch.
  g.batch = 7;
  e = run({cGemm(g)});
  EXPECT_NE(e.find("A pointer array range"), std::string::npos) << e;
}

TEST_F(CublasSession, HandlesAndWorkspace) {
  uint64_t ws = alloc(4096), c = alloc(64);
  Gemm g;
  g.m = g.n = g.k = 2;
  g.a = g.b = g.c = op(c, 2, kR32F);
  std::string e = run({cGemm(g)});
  EXPECT_NE(e.find("unknown cuBLAS handle 0x1"), std::string::npos) << e;
  e = run({cCreate(1), cCreate(1)});
  EXPECT_NE(e.find("cublasCreate_v2: cuBLAS handle 0x1 is reserved or already"),
            std::string::npos)
      << e;
  e = run({cWorkspace(1, ws, 8192)});
  EXPECT_NE(e.find("cublasSetWorkspace_v2: workspace range"), std::string::npos)
      << e;
  ASSERT_EQ(run({cWorkspace(1, ws, 4096), cGemm(g)}), "");
  // Freeing the workspace behind cuBLAS's back makes the next call fail.
  e = run({cFree(ws), cGemm(g)});
  EXPECT_NE(e.find("workspace"), std::string::npos) << e;
  EXPECT_NE(e.find("freed"), std::string::npos) << e;
  ASSERT_EQ(run({cWorkspace(1, 0, 0), cGemm(g), cDestroy(1)}), "");
  e = run({cGemm(g)});
  EXPECT_NE(e.find("unknown cuBLAS handle"), std::string::npos) << e;
  // Scalars must match the compute type; unknown streams are refused.
  ASSERT_EQ(run({cCreate(2)}), "");
  g.handle = 2, g.compute = kCompute16F;
  g.a = g.b = g.c = op(c, 2, kR16F);
  ASSERT_EQ(run({cGemm(g)}), "");
  Gemm bad = g;
  bad.scalarBytes = 4; // a float alpha for a half compute type
  e = run({cGemm(bad)});
  EXPECT_NE(e.find("alpha/beta of 4/4 bytes, the compute type takes 2"),
            std::string::npos)
      << e;
  bad = g;
  bad.stream = 0x999;
  e = run({cGemm(bad)});
  EXPECT_NE(e.find("unknown stream"), std::string::npos) << e;
}

// cuBLAS enums travel as plain integers: a number that names no compute
// type, algorithm or math mode is refused by name before it becomes the
// enum (holding it in one is undefined behaviour, which UBSan reports), and
// the session stays usable.
TEST_F(CublasSession, NumbersOutsideTheCublasEnumsAreRefused) {
  uint64_t c = alloc(64);
  ASSERT_EQ(run({cCreate(1)}), "");
  Gemm g;
  g.m = g.n = g.k = 2;
  g.a = g.b = g.c = op(c, 2, kR32F);
  struct Case {
    int compute, algo;
    uint32_t mathMode;
    const char *expected;
  } cases[] = {
      {0x7fff0000, kAlgoDefault, kDefaultMath,
       "compute type 2147418112 is not supported"},
      {-5, kAlgoDefault, kDefaultMath, "compute type -5 is not"},
      {kCompute32F, 1000, kDefaultMath, "unknown cublasGemmAlgo_t 1000"},
      {kCompute32F, -2, kDefaultMath, "unknown cublasGemmAlgo_t -2"},
      {kCompute32F, 24, kDefaultMath, "unknown cublasGemmAlgo_t 24"},
      {kCompute32F, kAlgoDefault, 4, "unknown cublasMath_t 4"},
      {kCompute32F, kAlgoDefault, 0x80000003u,
       "unknown cublasMath_t 2147483651"}};
  for (const Case &k : cases) {
    Gemm bad = g;
    bad.compute = k.compute, bad.algo = k.algo, bad.mathMode = k.mathMode;
    std::string e = run({cGemm(bad)});
    EXPECT_NE(e.find(k.expected), std::string::npos) << e;
  }
  // Every algorithm and mode cuBLAS defines still passes.
  g.algo = kAlgoTensorOp, g.mathMode = kTF32Math | 16;
  EXPECT_EQ(run({cGemm(g)}), "");
}

// ggml captures its whole compute graph, GEMMs included: a GEMM is a graph
// node (on a GPU, rc-server lets cuBLAS capture its kernels into the CUDA
// graph), and an update that changes it takes effect at the next launch.
TEST_F(CublasSession, GemmIsAGraphNode) {
  TnGemmCase t = tnGemmCase(1, 10);
  const Gemm &g = t.g;
  const std::vector<float> &C = t.C;
  const uint64_t c = t.c;
  const int m = g.m;
  ASSERT_EQ(run({cCreate(1)}), "");
  uint64_t bytes = C.size() * 4;
  ASSERT_EQ(run({cGraphInstantiate(7, {cMemset(c, 0xFF, bytes), cGemm(g)})}),
            "");
  expectNear(runAndRead({cGraphLaunch(7)}, c, C.size(), kR32F), C);
  Gemm twice = g;
  twice.alpha = 2;
  std::vector<float> C2 = C;
  for (float &v : C2)
    v *= 2;
  ASSERT_EQ(run({cGraphUpdate(7, {1}, {cGemm(twice)})}), "");
  expectNear(runAndRead({cGraphLaunch(7)}, c, C.size(), kR32F), C2);
  // A node is checked like the call: C past its allocation is refused and
  // the graph keeps its nodes.
  Gemm outside = g;
  outside.c = op(c + 64, m, kR32F);
  std::string e = run({cGraphUpdate(7, {1}, {cGemm(outside)})});
  EXPECT_NE(e.find("node 1"), std::string::npos) << e;
  EXPECT_NE(e.find("C range"), std::string::npos) << e;
  expectNear(runAndRead({cGraphLaunch(7)}, c, C.size(), kR32F), C2);
}

// CUBLAS_POINTER_MODE_DEVICE: alpha and beta are read from device memory,
// in stream order; each must lie inside the session's allocations.
TEST_F(CublasSession, GemmWithDeviceScalars) {
  TnGemmCase t = tnGemmCase(2, 12);
  uint64_t scalars = upload({7.0f, 0.0f}, kR32F);
  ASSERT_EQ(run({cCreate(1)}), "");
  Gemm g = t.g;
  g.deviceAlpha = scalars, g.deviceBeta = scalars + 4;
  // alpha becomes 2 in the same batch, before the GEMM reads it.
  expectNear(runAndRead({cH2D(scalars, encode({2.0f}, kR32F)), cGemm(g)}, t.c,
                        t.C.size(), kR32F),
             t.C);
  Gemm outside = g;
  outside.deviceBeta = 0x10;
  std::string e = run({cGemm(outside)});
  EXPECT_NE(e.find("beta"), std::string::npos) << e;
}

// A graph's node must not return host values or make objects: such a row
// is refused at instantiation, naming the node. Device scalars are cuBLAS's
// alone.
TEST_F(CublasSession, LibraryNodesAndDeviceScalarsAreChecked) {
  uint64_t x = upload(quarters(16, 16), kR32F);
  ASSERT_EQ(run({cCreate(1)}), "");
  Bytes dot; // cublasSdot_v2 "h v d v d v o", host result
  put(dot, uint64_t(1)), put(dot, 16), put(dot, x), put(dot, 1), put(dot, x),
      put(dot, 1);
  std::string e =
      run({cGraphInstantiate(12, {cLibCall("cublasSdot_v2", dot)})});
  EXPECT_NE(e.find("node 0"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot be a graph node"), std::string::npos) << e;
  Bytes seed; // curandSetPseudoRandomGeneratorSeed "h v": no pointer mode
  put(seed, uint64_t(5)), put(seed, 42ull);
  e = run({cLibCall("curandSetPseudoRandomGeneratorSeed", seed, true)});
  EXPECT_NE(e.find("only cuBLAS calls have device scalars"), std::string::npos)
      << e;
}

// cuBLAS's level-1 rows with device scalars and results, batched and as
// nodes of a graph, where cuBLAS captures its own kernels.
TEST_F(CublasSession, RowsWithDeviceScalarsAndInGraphs) {
  if (!RC_CUBLAS_TEST_GPU)
    GTEST_SKIP() << "the test device's cuBLAS is a CPU reference of the "
                    "GEMMs: no level-1 routines";
  const int n = 64;
  std::vector<float> x = quarters(n, 17), y = quarters(n, 18);
  uint64_t dx = upload(x, kR32F), dy = upload(y, kR32F);
  uint64_t scal = upload({3.0f, 0.0f}, kR32F); // alpha; the dot's result
  ASSERT_EQ(run({cCreate(1)}), "");
  // cublasSaxpy_v2 "h v i d v d v": y += alpha x.
  auto axpy = [&](bool deviceAlpha, float alpha) {
    Bytes b;
    put(b, uint64_t(1)), put(b, n);
    if (deviceAlpha)
      put(b, scal);
    put(b, dx), put(b, 1), put(b, dy), put(b, 1);
    if (!deviceAlpha)
      put(b, alpha);
    return cLibCall("cublasSaxpy_v2", b, deviceAlpha);
  };
  // cublasSdot_v2 "h v d v d v o": the result at scal + 4.
  Bytes dot;
  put(dot, uint64_t(1)), put(dot, n), put(dot, dx), put(dot, 1), put(dot, dy),
      put(dot, 1), put(dot, scal + 4);
  Cmd dotOnDevice = cLibCall("cublasSdot_v2", dot, true);
  auto expectY = [&](std::vector<float> want) {
    float d = 0;
    for (int i = 0; i < n; ++i)
      d += x[i] * want[i];
    std::vector<float> got = runAndRead({}, dy, n, kR32F);
    expectNear(got, want);
    expectNear(runAndRead({}, scal + 4, 1, kR32F), {d});
  };
  for (int i = 0; i < n; ++i)
    y[i] += 3 * x[i];
  ASSERT_EQ(run({axpy(true, 0), dotOnDevice}), "");
  expectY(y);
  // The same two calls as a graph's nodes; each launch runs both again.
  ASSERT_EQ(run({cGraphInstantiate(13, {axpy(false, 2), dotOnDevice})}), "");
  for (int launch = 0; launch < 2; ++launch) {
    for (int i = 0; i < n; ++i)
      y[i] += 2 * x[i];
    ASSERT_EQ(run({cGraphLaunch(13)}), "");
    expectY(y);
  }
  // An update of a library node captures the graph again.
  ASSERT_EQ(run({cGraphUpdate(13, {0}, {axpy(false, -1)})}), "");
  for (int i = 0; i < n; ++i)
    y[i] -= x[i];
  ASSERT_EQ(run({cGraphLaunch(13)}), "");
  expectY(y);
}

// ggml's batched GEMMs with device pointer arrays are captured too, behind
// the kernel that writes the arrays. Their contents exist only when the
// graph runs, so rc-server replays such a graph (docs/graphs.md): each launch
// reads and checks the arrays as the batched call does. Instantiation
// checks only that the arrays themselves lie inside allocations.
TEST_F(CublasSession, PointerArrayGemmIsAReplayedGraphNode) {
  PointerArrayCase pc = pointerArrayCase(30);
  const Gemm &g = pc.g;
  uint64_t arrays = g.a.ptr(), c = pc.c, cBytes = pc.C.size() * 4;
  // The arrays are written by the graph's first node, from a copy made now;
  // the arrays themselves hold zeros until then.
  uint64_t source = alloc(6 * 8);
  ASSERT_EQ(run({pc.upload, cD2D(source, arrays, 6 * 8),
                 cMemset(arrays, 0, 6 * 8), cCreate(1)}),
            "");

  // Instantiated first as the strided call with the same matrices (A
  // repeated: stride 0), then updated to the pointer-array call.
  Gemm strided = g;
  strided.api = wire::CublasGemmApi::GemmStridedBatchedEx;
  const std::vector<uint64_t> &ptrs = pc.ptrs;
  const int m = g.m, n = g.n, k = g.k;
  strided.a = op(ptrs[0], k, kR16F, 0);
  strided.b = op(ptrs[2], k, kR16F, int64_t(k) * n);
  strided.c = op(ptrs[4], m, kR32F, int64_t(m) * n);
  auto nodes = [&](const Gemm &gemm) {
    return std::vector<Cmd>{cD2D(arrays, source, 6 * 8),
                            cMemset(c, 0xFF, cBytes), cGemm(gemm)};
  };
  ASSERT_EQ(run({cGraphInstantiate(9, nodes(strided))}), "");
  expectNear(runAndRead({cGraphLaunch(9)}, c, pc.C.size(), kR32F), pc.C);

  Gemm twice = g;
  twice.alpha = 2;
  std::vector<float> C2 = pc.C;
  for (float &v : C2)
    v *= 2;
  ASSERT_EQ(run({cGraphUpdate(9, {2}, {cGemm(twice)})}), "");
  expectNear(runAndRead({cGraphLaunch(9)}, c, pc.C.size(), kR32F), C2);
  // Instantiated with pointer arrays from the start.
  ASSERT_EQ(run({cGraphInstantiate(10, nodes(g))}), "");
  expectNear(runAndRead({cGraphLaunch(10)}, c, pc.C.size(), kR32F), pc.C);

  // An array entry outside the session's allocations is refused when the
  // graph runs, naming the node; the session goes on.
  std::vector<uint64_t> wild = ptrs;
  wild[1] = 0x1234;
  ASSERT_EQ(run({cH2D(source, u64s(wild))}), "");
  std::string e = run({cGraphLaunch(10), cDeviceSync()});
  EXPECT_NE(e.find("node 2"), std::string::npos) << e;
  EXPECT_NE(e.find("A[1] = 0x1234"), std::string::npos) << e;
  ASSERT_EQ(run({cH2D(source, u64s(ptrs))}), "");
  expectNear(runAndRead({cGraphLaunch(10)}, c, pc.C.size(), kR32F), pc.C);

  // The arrays themselves must lie inside an allocation.
  Gemm outside = g;
  outside.b = op(arrays + 6 * 8 - 8, k, kR16F);
  e = run({cGraphInstantiate(11, nodes(outside))});
  EXPECT_NE(e.find("B pointer array"), std::string::npos) << e;
}

} // namespace
