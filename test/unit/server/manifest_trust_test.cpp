// What rc-server trusts: a manifest that agrees with itself and with its
// cubins (checked when it is loaded: one flipped bit is refused), and a
// client whose binaries are builds it holds a manifest of (checked at
// Hello).
#include "host_session_fixture.h"
#include "rc/build_id.h"
#include "rc/manifest_file.h"
#include "rc/server/registry.h"
#ifdef RC_TEST_FATBIN
#include "gpu_manifest.h"
#endif

#include <gtest/gtest.h>

namespace rc::server::test {
namespace {

namespace fb = flatbuffers;
namespace mf = rc::manifest;

Bytes helloWithBuilds(const std::vector<uint64_t> &manifests,
                      const std::vector<uint64_t> &builds) {
  fb::FlatBufferBuilder fbb;
  auto hashes = fbb.CreateVector(manifests);
  auto ids = fbb.CreateVector(builds);
  auto name = fbb.CreateString("trust-test");
  wire::HelloBuilder h(fbb);
  h.add_protocol_version(1);
  h.add_manifest_hashes(hashes);
  h.add_client_name(name);
  h.add_build_ids(ids);
  fbb.Finish(wire::CreateMessage(fbb, wire::Body::Hello, h.Finish().Union()),
             "RCW1");
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

uint64_t buildOfFile(const std::string &path) {
  LoadedManifest m;
  std::string err;
  EXPECT_TRUE(loadManifest(path, m, &err)) << err;
  return m.root ? buildIdOf(*m.root) : 0;
}

class ManifestTrustTest : public HostSessionTest {};

TEST_F(ManifestTrustTest, AClientOfAHeldBuildIsServed) {
  Bytes reply = send1(helloWithBuilds({m.hash}, {buildOfFile(m.path)}));
  const wire::HelloReply *r = asHelloReply(reply);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->ok()) << (r->error() ? r->error()->str() : "");
}

TEST_F(ManifestTrustTest, AClientOfAnotherBuildIsRefusedNamingIt) {
  uint64_t other = buildOfFile(m.path) ^ 1;
  Bytes reply = send1(helloWithBuilds({m.hash}, {other}));
  const wire::HelloReply *r = asHelloReply(reply);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->ok());
  std::string error = r->error() ? r->error()->str() : "";
  char id[32];
  std::snprintf(id, sizeof id, "build 0x%016llx", (unsigned long long)other);
  EXPECT_NE(error.find(id), std::string::npos) << error;
  EXPECT_NE(error.find("is not loaded on this server"), std::string::npos)
      << error;
}

// The bytes of a scalar field of a table in `bytes`: standard flatbuffers
// layout (the table starts with the offset back to its vtable, which holds
// each field's offset within the table).
size_t fieldAt(const Bytes &bytes, const void *table, fb::voffset_t field) {
  const auto *t = static_cast<const uint8_t *>(table);
  const uint8_t *vtable = t - fb::ReadScalar<fb::soffset_t>(t);
  fb::voffset_t inTable = fb::ReadScalar<fb::voffset_t>(vtable + field);
  EXPECT_NE(inTable, 0) << "the field is not stored";
  return size_t(t + inTable - bytes.data());
}

// Loads `bytes` as a manifest file into a fresh registry.
bool load(const Bytes &bytes, std::string *error) {
  char dir[] = "/tmp/rc-trust-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/flipped.rcm";
  EXPECT_TRUE(writeFile(path, bytes.data(), bytes.size(), error)) << *error;
  Registry reg;
  return reg.addFile(path, error);
}

TEST(ManifestTrust, ARecordedBuildIdThatIsNotItsModulesIsRefused) {
  TestManifest t = writeTestManifest();
  Bytes bytes;
  std::string err;
  ASSERT_TRUE(readFile(t.path, bytes, &err)) << err;
  const mf::Manifest *m = mf::GetManifest(bytes.data());
  fb::FlatBufferBuilder fbb;
  std::vector<fb::Offset<mf::Module>> mods;
  for (const mf::Module *mod : *m->modules()) {
    std::vector<uint8_t> fatbin(mod->fatbin()->begin(), mod->fatbin()->end());
    mods.push_back(mf::CreateModuleDirect(fbb, mod->source()->c_str(),
                                          mod->fatbin_hash(), &fatbin));
  }
  auto modules = fbb.CreateVector(mods);
  mf::ManifestBuilder b(fbb);
  b.add_modules(modules);
  b.add_build_id(buildIdOf(*m) ^ 4);
  mf::FinishManifestBuffer(fbb, b.Finish());
  Bytes wrong(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_FALSE(load(wrong, &err));
  EXPECT_NE(err.find("is not the identity of its modules"), std::string::npos)
      << err;
}

#ifdef RC_TEST_FATBIN
// The real sm_90 fatbin of gpu_kernels.cu and a layout that matches it.
class FlippedManifest : public ::testing::Test {
protected:
  void SetUp() override {
    g = writeGpuManifest();
    std::string err;
    ASSERT_TRUE(readFile(g.path, bytes, &err)) << err;
    ASSERT_TRUE(load(bytes, &err)) << "the unflipped manifest: " << err;
  }
  const mf::Manifest &root() const { return *mf::GetManifest(bytes.data()); }
  GpuManifest g;
  Bytes bytes;
};

TEST_F(FlippedManifest, ABitOfALayoutIsRefusedNamingTheKernel) {
  const mf::Kernel *scale = root().kernels()->LookupByKey(g.scale);
  ASSERT_NE(scale, nullptr);
  const mf::Param *n = scale->params()->Get(1); // `int n` at offset 8
  bytes[fieldAt(bytes, n, mf::Param::VT_OFFSET)] ^= 0x04;
  std::string err;
  EXPECT_FALSE(load(bytes, &err));
  EXPECT_NE(err.find("flipped.rcm: refused"), std::string::npos) << err;
  EXPECT_NE(err.find("kernel scale(float*, int)"), std::string::npos) << err;
  EXPECT_NE(err.find("param #1 'n': manifest offset 12 size 4, cubin (sm_90) "
                     "offset 8 size 4"),
            std::string::npos)
      << err;
}

TEST_F(FlippedManifest, ABitOfTheDeviceCodeIsRefused) {
  const mf::Module *mod = root().modules()->Get(0);
  size_t middle =
      size_t(mod->fatbin()->data() - bytes.data()) + mod->fatbin()->size() / 2;
  bytes[middle] ^= 0x10;
  std::string err;
  EXPECT_FALSE(load(bytes, &err));
  EXPECT_NE(err.find("module 0 (gpu_kernels.cu): fatbin_hash"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("is not the hash of its fatbin"), std::string::npos)
      << err;
}
#endif

} // namespace
} // namespace rc::server::test
