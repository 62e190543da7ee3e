// Key files: what parses, what is refused (each error names the file, the
// line and what was wrong), the permission check, and keygen's new files.
#include "key_dir.h"
#include "rc/auth/key_file.h"

#include <gtest/gtest.h>

#include <string>
#include <sys/stat.h>

using rc::auth::Key;
using rc::test::KeyDir;

namespace {

const std::string kSecret(64, 'a'); // 32 bytes of 0xaa

std::string parseError(const std::string &text) {
  std::vector<Key> keys;
  std::string error;
  EXPECT_FALSE(rc::auth::parseKeys(text, "F", &keys, &error)) << text;
  EXPECT_TRUE(keys.empty());
  return error;
}

TEST(KeyFile, ParsesKeysSkippingCommentsAndBlankLines) {
  std::vector<Key> keys;
  std::string error;
  ASSERT_TRUE(rc::auth::parseKeys("# keys\n\n  tenant-a " + kSecret +
                                      "\ntenant.b@x  " + std::string(128, 'F') +
                                      "  \n",
                                  "F", &keys, &error))
      << error;
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].id, "tenant-a");
  EXPECT_EQ(keys[0].secret, std::vector<uint8_t>(32, 0xaa));
  EXPECT_EQ(keys[1].id, "tenant.b@x");
  EXPECT_EQ(keys[1].secret, std::vector<uint8_t>(64, 0xff));
}

TEST(KeyFile, BadLinesAreRefusedNamingTheLineAndTheProblem) {
  EXPECT_NE(parseError("a " + kSecret + "\nb\n")
                .find("F line 2: key 'b' has no secret"),
            std::string::npos);
  EXPECT_NE(parseError("a " + kSecret + " x\n").find("more than one secret"),
            std::string::npos);
  EXPECT_NE(
      parseError("a " + std::string(62, 'a') + "\n").find("has 62 hex digits"),
      std::string::npos);
  EXPECT_NE(parseError("a " + std::string(130, 'a') + "\n")
                .find("has 130 hex digits"),
            std::string::npos);
  EXPECT_NE(parseError("a " + std::string(63, 'a') + "g\n").find("not hex"),
            std::string::npos);
  EXPECT_NE(parseError("a/b " + kSecret + "\n").find("key id 'a/b'"),
            std::string::npos);
  EXPECT_NE(parseError("a " + kSecret + "\na " + kSecret + "\n")
                .find("F line 2: key id 'a' appears twice"),
            std::string::npos);
  EXPECT_NE(parseError("# nothing\n").find("F holds no key"),
            std::string::npos);
  EXPECT_NE(parseError("x y\n").find("rc-server keygen"), std::string::npos);
}

TEST(KeyFile, ValidKeyIds) {
  EXPECT_TRUE(rc::auth::validKeyId("default"));
  EXPECT_TRUE(rc::auth::validKeyId(std::string(64, 'k')));
  EXPECT_FALSE(rc::auth::validKeyId(""));
  EXPECT_FALSE(rc::auth::validKeyId(std::string(65, 'k')));
  EXPECT_FALSE(rc::auth::validKeyId("a b"));
  EXPECT_FALSE(rc::auth::validKeyId("a'b"));
}

TEST(KeyFile, FilesOthersCanReadOrWriteAreRefused) {
  KeyDir dir;
  std::vector<Key> keys;
  std::string error;
  std::string text = "k " + kSecret + "\n";
  EXPECT_TRUE(rc::auth::loadKeyFile(dir.write("ok", text, 0600), &keys, &error))
      << error;
  EXPECT_TRUE(rc::auth::loadKeyFile(dir.write("ro", text, 0400), &keys, &error))
      << error;
  for (mode_t mode : {0640, 0604, 0620, 0602, 0644}) {
    std::string file = dir.write("m" + std::to_string(mode), text, mode);
    EXPECT_FALSE(rc::auth::loadKeyFile(file, &keys, &error)) << mode;
    EXPECT_NE(error.find("refusing key file " + file), std::string::npos)
        << error;
    EXPECT_NE(error.find("chmod 600 " + file), std::string::npos) << error;
    EXPECT_TRUE(keys.empty());
  }
  EXPECT_FALSE(rc::auth::loadKeyFile(dir.path, &keys, &error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  EXPECT_FALSE(rc::auth::loadKeyFile(dir.path + "/none", &keys, &error));
  EXPECT_NE(error.find("cannot open key file " + dir.path + "/none"),
            std::string::npos)
      << error;
}

TEST(KeyFile, NewKeyFilesArePrivateFreshAndNeverOverwritten) {
  KeyDir dir;
  std::string a = dir.path + "/a.key", b = dir.path + "/b.key";
  std::string error;
  mode_t old = umask(0); // even with a permissive umask
  bool wroteA = rc::auth::writeNewKeyFile(a, "tenant-1", &error);
  umask(old);
  ASSERT_TRUE(wroteA) << error;
  ASSERT_TRUE(rc::auth::writeNewKeyFile(b, "default", &error)) << error;
  struct stat st{};
  ASSERT_EQ(stat(a.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::vector<Key> ka, kb;
  ASSERT_TRUE(rc::auth::loadKeyFile(a, &ka, &error)) << error;
  ASSERT_TRUE(rc::auth::loadKeyFile(b, &kb, &error)) << error;
  ASSERT_EQ(ka.size(), 1u);
  EXPECT_EQ(ka[0].id, "tenant-1");
  EXPECT_EQ(ka[0].secret.size(), 32u);
  EXPECT_NE(ka[0].secret, kb[0].secret);

  EXPECT_FALSE(rc::auth::writeNewKeyFile(a, "other", &error));
  EXPECT_NE(error.find("never overwritten"), std::string::npos) << error;
  std::vector<Key> again;
  ASSERT_TRUE(rc::auth::loadKeyFile(a, &again, &error)) << error;
  EXPECT_EQ(again[0].secret, ka[0].secret); // the old key is still there
  EXPECT_FALSE(rc::auth::writeNewKeyFile(dir.path + "/c", "bad id", &error));
  EXPECT_NE(error.find("key id 'bad id'"), std::string::npos) << error;
}

} // namespace
