// Manifest discovery: a library the loader opened through a soname link
// (libx.so.1 -> libx.so.1.2.3) has its manifest beside the real file, where
// the link step wrote it; and a manifest beside an object is used only if
// it is that object's build.
#include "fake_server.h"
#include "manifests/kernel_index.h"
#include "rc/build_id.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string copyOf(const char *from, const std::string &to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
  return to;
}

TEST(ManifestDiscovery, FindsTheManifestBesideTheRealFileOfASonameLink) {
  // Any shared library not loaded yet will do; bzip2's is on every Debian.
  const char *lib = "/lib/x86_64-linux-gnu/libbz2.so.1.0";
  if (::access(lib, R_OK) != 0)
    GTEST_SKIP() << lib << " is not on this machine";
  char dir[] = "/tmp/rc-discovery-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  std::string real = copyOf(lib, std::string(dir) + "/librcdisc.so.1.2.3");
  std::string link = std::string(dir) + "/librcdisc.so.1";
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  std::ofstream(real + ".rcm") << "x";

  void *handle = ::dlopen(link.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  std::vector<std::string> found = rc::rt::discoverManifestPaths();
  ::dlclose(handle);
  EXPECT_NE(std::find(found.begin(), found.end(), real + ".rcm"), found.end())
      << "manifest beside the real file was not found";
  EXPECT_EQ(std::find(found.begin(), found.end(), link + ".rcm"), found.end());
}

std::string buildText(uint64_t id) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "build 0x%016" PRIx64, id);
  return buf;
}

TEST(ManifestDiscovery, AManifestIsTheBuildOfTheModulesItsObjectRegistered) {
  auto m = rc::test::makeManifest(0x1111, {});
  std::string error;
  EXPECT_TRUE(rc::rt::isBuildOf(*m, "/p/app", {0x1111}, &error)) << error;
  EXPECT_TRUE(rc::rt::isBuildOf(*m, "/p/app", {0x1111, 0x1111}, &error))
      << "a fatbin linked twice is the same build: " << error;

  // Another build: same kernels, other device code.
  EXPECT_FALSE(rc::rt::isBuildOf(*m, "/p/app", {0x2222}, &error));
  EXPECT_NE(error.find("it is not the manifest of /p/app's build"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("the binary's device code is " +
                       buildText(rc::buildId({0x2222}))),
            std::string::npos)
      << error;
  EXPECT_NE(
      error.find("the manifest describes " + buildText(rc::buildId({0x1111}))),
      std::string::npos)
      << error;
  EXPECT_FALSE(rc::rt::isBuildOf(*m, "/p/app", {0x1111, 0x3333}, &error))
      << "a binary with one more module is another build";
  EXPECT_FALSE(rc::rt::isBuildOf(*m, "/p/app", {}, &error));
  EXPECT_NE(error.find("the binary registers no device code"),
            std::string::npos)
      << error;
}

} // namespace
