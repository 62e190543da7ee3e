// A manifest's identity is the fnv1a64 of its flatbuffer. rc-link records
// it in a trailer so that clients need not read all of a large manifest to
// name it; rc-server computes it and refuses a file that disagrees.
#include "rc/kernel_id.h"
#include "rc/manifest_file.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>

namespace rc::server::test {
namespace {

std::vector<uint8_t> fileBytes(const std::string &path) {
  std::vector<uint8_t> b;
  std::string err;
  EXPECT_TRUE(readFile(path, b, &err)) << err;
  return b;
}

std::string writeBytes(const std::string &name,
                       const std::vector<uint8_t> &bytes) {
  std::string path =
      "/tmp/rc-manifest-hash-" + std::to_string(getpid()) + "-" + name + ".rcm";
  std::string err;
  EXPECT_TRUE(writeFile(path, bytes.data(), bytes.size(), &err)) << err;
  return path;
}

class ManifestHashTest : public ::testing::Test {
protected:
  void SetUp() override {
    TestManifest t = writeTestManifest("hash");
    flatbuffer = fileBytes(t.path);
    std::remove(t.path.c_str());
    withTrailer = flatbuffer;
    appendHashTrailer(withTrailer);
  }
  void TearDown() override {
    for (const std::string &p : paths)
      std::remove(p.c_str());
  }
  std::string file(const std::string &name, const std::vector<uint8_t> &b) {
    paths.push_back(writeBytes(name, b));
    return paths.back();
  }
  std::vector<uint8_t> flatbuffer, withTrailer;
  std::vector<std::string> paths;
};

TEST_F(ManifestHashTest, TheTrailerRecordsTheFlatbuffersHash) {
  ASSERT_EQ(withTrailer.size(), flatbuffer.size() + kManifestHashTrailer);
  EXPECT_EQ(std::string(withTrailer.end() - 16, withTrailer.end() - 8),
            "RCMHASH1");
  std::string path = file("trailer", withTrailer);
  for (ManifestHash how :
       {ManifestHash::Compute, ManifestHash::TrustRecorded}) {
    LoadedManifest m;
    std::string err;
    ASSERT_TRUE(loadManifest(path, m, &err, how)) << err;
    EXPECT_EQ(m.hash, fnv1a64(flatbuffer.data(), flatbuffer.size()));
    EXPECT_EQ(m.size(), flatbuffer.size()) << "the trailer is not manifest";
    ASSERT_NE(m.root, nullptr);
    EXPECT_EQ(m.root->kernels()->size(), 2u);
  }
}

TEST_F(ManifestHashTest, AManifestWithoutTrailerIsHashedAsBefore) {
  std::string path = file("plain", flatbuffer);
  for (ManifestHash how :
       {ManifestHash::Compute, ManifestHash::TrustRecorded}) {
    LoadedManifest m;
    std::string err;
    ASSERT_TRUE(loadManifest(path, m, &err, how)) << err;
    EXPECT_EQ(m.hash, fnv1a64(flatbuffer.data(), flatbuffer.size()));
  }
}

TEST_F(ManifestHashTest, AFileChangedAfterItWasWrittenIsRefusedWhereComputed) {
  // A byte of the module's cubin: the flatbuffer stays well formed.
  LoadedManifest original;
  std::string err;
  ASSERT_TRUE(loadManifest(file("original", withTrailer), original, &err))
      << err;
  const auto *fatbin = original.root->modules()->Get(0)->fatbin();
  size_t at = size_t(fatbin->data() - original.data());
  std::vector<uint8_t> changed = withTrailer;
  changed[at] ^= 0xFF;
  std::string path = file("changed", changed);

  LoadedManifest server;
  EXPECT_FALSE(loadManifest(path, server, &err, ManifestHash::Compute));
  EXPECT_NE(err.find("differ from the hash rc-link recorded"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;

  // A client names what rc-link recorded; the server, which holds the
  // file as written, serves it by that name.
  LoadedManifest client;
  ASSERT_TRUE(loadManifest(path, client, &err, ManifestHash::TrustRecorded))
      << err;
  EXPECT_EQ(client.hash, original.hash);
}

TEST_F(ManifestHashTest, ACorruptFlatbufferIsRefusedEitherWay) {
  std::vector<uint8_t> corrupt = withTrailer;
  corrupt[4] ^= 0xFF; // the RCMF identifier
  std::string path = file("corrupt", corrupt);
  for (ManifestHash how :
       {ManifestHash::Compute, ManifestHash::TrustRecorded}) {
    LoadedManifest m;
    std::string err;
    EXPECT_FALSE(loadManifest(path, m, &err, how));
    EXPECT_NE(err.find("not a remote-clang manifest"), std::string::npos)
        << err;
  }
}

TEST_F(ManifestHashTest, AnEmptyFileOrAFolderIsRefusedByName) {
  std::string empty = file("empty", {});
  for (const std::string &path : {empty, std::string("/tmp")}) {
    LoadedManifest m;
    std::string err;
    EXPECT_FALSE(loadManifest(path, m, &err, ManifestHash::TrustRecorded));
    EXPECT_NE(err.find(path), std::string::npos) << err;
  }
}

} // namespace
} // namespace rc::server::test
