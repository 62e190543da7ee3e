// Kernel and variable IDs are scoped by manifest: two programs that define a
// kernel or a __constant__ of the same name with other types are served by
// one rc-server, each session resolving IDs only in its client's manifests;
// the same library in two manifests is held once.
#include "rc/kernel_id.h"
#include "rc/manifest_file.h"
#include "rc/server/host_backend.h"
#include "rc/server/registry.h"
#include "rc/server/session.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace rc::server::test {
namespace {

namespace fb = flatbuffers;
namespace mf = rc::manifest;

// extern "C" names: the same ID whatever the parameter types, as two
// programs' `extern "C" __global__ void twin(...)` and `__constant__
// ... table[N]` have.
const char *kKernelName = "twin";
const char *kTableName = "table";
const char *kSharedName = "_Z6sharedPf"; // shared(float*)

// One program's manifest: its own module (`source` and `fill` make the
// fatbin distinct), `twin` with `params` (name, size, kind) packed in
// order, `table` of `tableBytes`; with `withShared`, also `shared(float*)`
// in a second module whose fatbin is the same in every program (a library
// both link).
struct ProgramSpec {
  std::string source;
  uint8_t fill = 0;
  std::vector<std::pair<uint32_t, mf::ParamKind>> params;
  uint64_t tableBytes = 0;
  bool withShared = false;
};

struct WrittenManifest {
  std::string path;
  uint64_t hash = 0;
};

WrittenManifest writeProgram(const ProgramSpec &spec) {
  fb::FlatBufferBuilder fbb;
  std::vector<uint8_t> own(64, spec.fill), lib(64, 0x77);
  std::vector<fb::Offset<mf::Module>> modules = {mf::CreateModuleDirect(
      fbb, spec.source.c_str(), fnv1a64(own.data(), own.size()), &own)};
  if (spec.withShared)
    modules.push_back(mf::CreateModuleDirect(
        fbb, "lib.cu", fnv1a64(lib.data(), lib.size()), &lib));

  std::vector<fb::Offset<mf::Param>> params;
  uint32_t offset = 0;
  for (const auto &[size, kind] : spec.params) {
    params.push_back(
        mf::CreateParamDirect(fbb, "p", "T", offset, size, size, kind));
    offset += size;
  }
  std::vector<fb::Offset<mf::Param>> sharedParams = {mf::CreateParamDirect(
      fbb, "x", "float *", 0, 8, 8, mf::ParamKind::Pointer)};
  std::vector<fb::Offset<mf::Kernel>> kernels = {
      mf::CreateKernelDirect(fbb, symbolId(kKernelName, false, ""), kKernelName,
                             "twin", false, 0, &params, offset)};
  if (spec.withShared)
    kernels.push_back(mf::CreateKernelDirect(
        fbb, symbolId(kSharedName, false, ""), kSharedName, "shared(float*)",
        false, 1, &sharedParams, 8));
  auto sortedKernels = fbb.CreateVectorOfSortedTables(&kernels);
  std::vector<fb::Offset<mf::Variable>> vars = {mf::CreateVariableDirect(
      fbb, symbolId(kTableName, false, ""), kTableName, "table", false,
      spec.tableBytes, mf::VarKind::Constant, 0)};
  auto modulesVec = fbb.CreateVector(modules);
  auto varsVec = fbb.CreateVector(vars);
  mf::ManifestBuilder b(fbb);
  b.add_modules(modulesVec);
  b.add_kernels(sortedKernels);
  b.add_variables(varsVec);
  mf::FinishManifestBuffer(fbb, b.Finish());

  char dir[] = "/tmp/rc-scope-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  WrittenManifest w;
  w.path = std::string(dir) + "/" + spec.source + ".rcm";
  std::string error;
  EXPECT_TRUE(writeFile(w.path, fbb.GetBufferPointer(), fbb.GetSize(), &error))
      << error;
  w.hash = fnv1a64(fbb.GetBufferPointer(), fbb.GetSize());
  return w;
}

const uint64_t kTwin = symbolId(kKernelName, false, "");
const uint64_t kTable = symbolId(kTableName, false, "");
const uint64_t kShared = symbolId(kSharedName, false, "");

// Program A: twin(int* out, int v), __constant__ int table[16].
ProgramSpec programA() {
  return {"a",
          0x11,
          {{8, mf::ParamKind::Pointer}, {4, mf::ParamKind::Value}},
          64,
          true};
}
// Program B: twin(double a, double b, double* out), __constant__ double
// table[32]: other types, sizes and code under the same names.
ProgramSpec programB() {
  return {"b",
          0x22,
          {{8, mf::ParamKind::Value},
           {8, mf::ParamKind::Value},
           {8, mf::ParamKind::Pointer}},
          256,
          true};
}

TEST(ManifestScope, TwoProgramsWithTheSameNamesLoadSideBySide) {
  WrittenManifest a = writeProgram(programA()), b = writeProgram(programB());
  Registry reg;
  std::string err;
  ASSERT_TRUE(reg.addFile(a.path, &err)) << err;
  ASSERT_TRUE(reg.addFile(b.path, &err)) << err;
  ASSERT_EQ(reg.manifestCount(), 2u);
  const KernelInfo *ka = reg.kernelIn(0, kTwin), *kb = reg.kernelIn(1, kTwin);
  ASSERT_NE(ka, nullptr);
  ASSERT_NE(kb, nullptr);
  EXPECT_NE(ka, kb);
  EXPECT_EQ(ka->argsSize, 12u);
  EXPECT_EQ(kb->argsSize, 24u);
  EXPECT_NE(ka->module, kb->module);
  EXPECT_EQ(kb->params[2].pointerOffsets, std::vector<uint32_t>{16});
  const VariableInfo *va = reg.variableIn(0, kTable);
  const VariableInfo *vb = reg.variableIn(1, kTable);
  ASSERT_NE(va, nullptr);
  ASSERT_NE(vb, nullptr);
  EXPECT_EQ(va->size, 64u);
  EXPECT_EQ(vb->size, 256u);
  // The library both link is one definition, in one module, of both.
  EXPECT_EQ(reg.kernelIn(0, kShared), reg.kernelIn(1, kShared));
  EXPECT_EQ(reg.kernelIn(0, kShared)->manifests, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(reg.modules.size(), 3u); // a's, b's, the library's
  EXPECT_EQ(reg.kernels.size(), 3u); // twin twice, shared once
  EXPECT_EQ(reg.variables.size(), 2u);
}

TEST(ManifestScope, TheSameCodeUnderAnotherLayoutIsAnotherDefinition) {
  // Same module bytes and name, other layout: not the same library, so
  // each manifest is validated against its own layout.
  ProgramSpec a = programA(), b = programA();
  b.source = "a2"; // another file, same module bytes
  b.params = {{8, mf::ParamKind::Value}, {4, mf::ParamKind::Value}};
  WrittenManifest wa = writeProgram(a), wb = writeProgram(b);
  Registry reg;
  std::string err;
  ASSERT_TRUE(reg.addFile(wa.path, &err)) << err;
  ASSERT_TRUE(reg.addFile(wb.path, &err)) << err;
  const KernelInfo *ka = reg.kernelIn(0, kTwin), *kb = reg.kernelIn(1, kTwin);
  ASSERT_NE(ka, nullptr);
  ASSERT_NE(kb, nullptr);
  EXPECT_NE(ka, kb);
  EXPECT_EQ(ka->params[0].pointerOffsets.size(), 1u);
  EXPECT_TRUE(kb->params[0].pointerOffsets.empty());
}

TEST(ManifestScope, ARefusedManifestLeavesTheRegistryAsItWas) {
  WrittenManifest a = writeProgram(programA());
  ProgramSpec badSpec = programB();
  badSpec.params.push_back({4, mf::ParamKind::Pointer}); // a 4-byte pointer
  WrittenManifest bad = writeProgram(badSpec);
  Registry reg;
  std::string err;
  ASSERT_TRUE(reg.addFile(a.path, &err)) << err;
  EXPECT_FALSE(reg.addFile(bad.path, &err));
  EXPECT_NE(err.find("pointer parameter of size 4"), std::string::npos) << err;
  EXPECT_EQ(reg.manifestCount(), 1u);
  EXPECT_EQ(reg.kernels.size(), 2u);
  EXPECT_EQ(reg.variables.size(), 1u);
  EXPECT_EQ(reg.modules.size(), 2u);
  EXPECT_EQ(reg.manifestByHash(bad.hash), -1);
}

// One server (registry, test device) with both programs' manifests; a
// session per client, each announcing its own.
class ScopedSessions : public ::testing::Test {
protected:
  void SetUp() override {
    a = writeProgram(programA());
    b = writeProgram(programB());
    std::string err;
    ASSERT_TRUE(reg.addFile(a.path, &err)) << err;
    ASSERT_TRUE(reg.addFile(b.path, &err)) << err;
    backend = std::make_unique<HostBackend>(1);
    ASSERT_TRUE(backend->prepare(reg, &err)) << err;
    env = std::make_unique<SessionEnv>(SessionEnv{reg, *backend});
  }
  std::unique_ptr<Session> open(const std::vector<uint64_t> &manifests,
                                uint64_t id) {
    auto s = std::make_unique<Session>(*env, id);
    const wire::HelloReply *r = asHelloReply(send1(*s, hello(manifests)));
    EXPECT_TRUE(r && r->ok()) << (r && r->error() ? r->error()->str() : "");
    return s;
  }
  // The one reply, kept in `last` (what the reply views point into) until
  // the next message.
  const Bytes &send1(Session &s, const Bytes &msg) {
    std::vector<Bytes> replies;
    s.handle(msg.data(), msg.size(), replies);
    EXPECT_EQ(replies.size(), 1u);
    last = replies.empty() ? Bytes() : replies[0];
    return last;
  }
  // The batch's error message, or "" when it succeeded.
  std::string errorOf(Session &s, const Bytes &msg) {
    const wire::BatchReply *r = asBatchReply(send1(s, msg));
    if (!r) {
      ADD_FAILURE() << "no batch reply";
      return "no reply";
    }
    if (!r->errors() || r->errors()->size() == 0)
      return "";
    const wire::Error *e = r->errors()->Get(0);
    return e->message() ? e->message()->str() : "error without a message";
  }
  uint64_t malloc(Session &s, uint64_t size) {
    const wire::BatchReply *r =
        asBatchReply(send1(s, batch(1, {cMalloc(size)})));
    const wire::Result *res = r ? resultAt(r, 0) : nullptr;
    EXPECT_NE(res, nullptr);
    return res ? res->addr() : 0;
  }

  WrittenManifest a, b;
  Registry reg;
  std::unique_ptr<HostBackend> backend;
  std::unique_ptr<SessionEnv> env;
  Bytes last;
};

Bytes pattern(size_t n, uint8_t seed) {
  Bytes out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = uint8_t(seed + i * 7);
  return out;
}

TEST_F(ScopedSessions, EachClientWritesAndReadsItsOwnConstant) {
  auto sa = open({a.hash}, 1), sb = open({b.hash}, 2);
  Bytes inA = pattern(64, 1), inB = pattern(256, 9);
  EXPECT_EQ(errorOf(*sa, batch(2, {cSymbolWrite(kTable, 0, inA)})), "");
  EXPECT_EQ(errorOf(*sb, batch(2, {cSymbolWrite(kTable, 0, inB)})), "");
  // A's table is 64 bytes: B's size is out of its bounds.
  EXPECT_NE(errorOf(*sa, batch(3, {cSymbolWrite(kTable, 0, inB)})), "");

  const wire::BatchReply *ra =
      asBatchReply(send1(*sa, batch(4, {cSymbolRead(kTable, 0, 64)})));
  ASSERT_NE(ra, nullptr);
  const wire::Result *res = resultAt(ra, 0);
  ASSERT_TRUE(res && res->payload());
  EXPECT_EQ(Bytes(res->payload()->begin(), res->payload()->end()), inA);
  const wire::BatchReply *rb =
      asBatchReply(send1(*sb, batch(4, {cSymbolRead(kTable, 0, 256)})));
  ASSERT_NE(rb, nullptr);
  res = resultAt(rb, 0);
  ASSERT_TRUE(res && res->payload());
  EXPECT_EQ(Bytes(res->payload()->begin(), res->payload()->end()), inB);
}

TEST_F(ScopedSessions, EachClientLaunchesItsOwnKernel) {
  auto sa = open({a.hash}, 1), sb = open({b.hash}, 2);
  uint64_t pa = malloc(*sa, 256), pb = malloc(*sb, 256);
  Bytes argsA(12, 0), argsB(24, 0);
  std::memcpy(argsA.data(), &pa, 8);
  std::memcpy(argsB.data() + 16, &pb, 8);
  EXPECT_EQ(errorOf(*sa, batch(2, {cLaunch(kTwin, argsA)})), "");
  EXPECT_EQ(errorOf(*sb, batch(2, {cLaunch(kTwin, argsB)})), "");
  // Each is held to its own layout: B's arguments are not A's kernel's.
  EXPECT_NE(errorOf(*sa, batch(3, {cLaunch(kTwin, argsB)})), "");
  // B's pointer is at 16; A's pointer where B has a double is refused.
  Bytes wrongB(24, 0);
  std::memcpy(wrongB.data() + 16, &pa, 8); // another session's memory
  EXPECT_NE(errorOf(*sb, batch(3, {cLaunch(kTwin, wrongB)})), "");

  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].args, argsA);
  EXPECT_EQ(launches[1].args, argsB);
}

TEST_F(ScopedSessions, HelloTellsEachClientItsOwnKernels) {
  auto sa = open({a.hash}, 1);
  const wire::HelloReply *r = asHelloReply(last);
  ASSERT_TRUE(r && r->kernel_attributes());
  std::vector<uint64_t> ids;
  for (const wire::KernelAttributes *k : *r->kernel_attributes())
    ids.push_back(k->kernel_id());
  std::sort(ids.begin(), ids.end());
  std::vector<uint64_t> want = {kTwin, kShared};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(ids, want);
}

TEST_F(ScopedSessions, AClientWhoseManifestsDisagreeIsToldWhich) {
  // One process with both binaries: the wire names `twin` by ID only, so
  // neither definition may be picked silently.
  auto s = open({a.hash, b.hash}, 3);
  uint64_t p = malloc(*s, 256);
  Bytes args(12, 0);
  std::memcpy(args.data(), &p, 8);
  std::string err = errorOf(*s, batch(2, {cLaunch(kTwin, args)}));
  EXPECT_NE(err.find("defined differently by two manifests"), std::string::npos)
      << err;
  EXPECT_NE(err.find(a.path), std::string::npos) << err;
  EXPECT_NE(err.find(b.path), std::string::npos) << err;
  err = errorOf(*s, batch(3, {cSymbolRead(kTable, 0, 4)}));
  EXPECT_NE(err.find("defined differently by two manifests"), std::string::npos)
      << err;
  // What both share still resolves.
  Bytes shared(8, 0);
  std::memcpy(shared.data(), &p, 8);
  EXPECT_EQ(errorOf(*s, batch(4, {cLaunch(kShared, shared)})), "");
}

} // namespace
} // namespace rc::server::test
