// A fresh directory for one test's key files, removed with them when the
// test ends; shared by the auth, server and runtime tests.
#ifndef RC_TEST_KEY_DIR_H
#define RC_TEST_KEY_DIR_H

#include "rc/auth/key_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace rc::test {

struct KeyDir {
  std::string path;
  KeyDir() {
    char tmpl[] = "/tmp/rc_keys_XXXXXX";
    path = mkdtemp(tmpl) ? tmpl : "";
    EXPECT_FALSE(path.empty()) << "mkdtemp failed";
  }
  ~KeyDir() {
    if (!path.empty())
      std::filesystem::remove_all(path);
  }
  // A new key file `name` holding one fresh key (as rc-server keygen makes).
  std::string newKey(const std::string &name,
                     const std::string &id = "default") {
    std::string file = path + "/" + name, error;
    EXPECT_TRUE(auth::writeNewKeyFile(file, id, &error)) << error;
    return file;
  }
  // A file `name` holding `text`, with `mode`.
  std::string write(const std::string &name, const std::string &text,
                    mode_t mode) {
    std::string file = path + "/" + name;
    std::ofstream(file) << text;
    chmod(file.c_str(), mode);
    return file;
  }
};

} // namespace rc::test

#endif
