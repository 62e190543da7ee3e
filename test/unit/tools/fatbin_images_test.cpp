// The fatbin/cubin parsers on synthetic inputs shaped like ptxas 12.4 output.
#include "rc/fatbin_images.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

template <typename T> void put(std::vector<uint8_t> &v, size_t at, T x) {
  if (v.size() < at + sizeof x)
    v.resize(at + sizeof x);
  std::memcpy(v.data() + at, &x, sizeof x);
}

// A fatbin with one entry of the given kind/arch/flags around `payload`.
std::vector<uint8_t> fatbin(uint16_t kind, uint32_t arch, uint64_t flags,
                            const std::vector<uint8_t> &payload) {
  std::vector<uint8_t> v(16 + 64, 0);
  put<uint32_t>(v, 0, 0xBA55ED50u);
  put<uint16_t>(v, 4, 1);
  put<uint16_t>(v, 6, 16);
  put<uint64_t>(v, 8, 64 + payload.size());
  put<uint16_t>(v, 16, kind);
  put<uint32_t>(v, 16 + 4, 64);
  put<uint64_t>(v, 16 + 8, payload.size());
  put<uint32_t>(v, 16 + 0x1c, arch);
  put<uint64_t>(v, 16 + 0x28, flags);
  v.insert(v.end(), payload.begin(), payload.end());
  return v;
}

} // namespace

TEST(FatbinImages, ReadsEntriesAndFlags) {
  std::vector<uint8_t> fb = fatbin(2, 90, 0x2011, {1, 2, 3, 4});
  std::vector<rc::tools::FatbinImage> images;
  std::string err;
  ASSERT_TRUE(rc::tools::parseFatbin(fb.data(), fb.size(), images, &err))
      << err;
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0].kind, 2);
  EXPECT_EQ(images[0].arch, 90u);
  EXPECT_TRUE(images[0].compressed);
  EXPECT_EQ(images[0].size, 4u);
  EXPECT_EQ(images[0].data[3], 4);
}

TEST(FatbinImages, RejectsOverrunsAndBadMagic) {
  std::vector<uint8_t> fb = fatbin(2, 90, 0x11, {1, 2, 3, 4});
  std::vector<rc::tools::FatbinImage> images;
  std::string err;
  put<uint64_t>(fb, 16 + 8, 1000); // payload larger than the fatbin
  EXPECT_FALSE(rc::tools::parseFatbin(fb.data(), fb.size(), images, &err));
  EXPECT_NE(err.find("runs past"), std::string::npos);
  fb[0] = 0;
  EXPECT_FALSE(rc::tools::parseFatbin(fb.data(), fb.size(), images, &err));
}

TEST(FatbinImages, RejectsNonElfCubin) {
  std::map<std::string, rc::tools::CubinKernel> kernels;
  std::string err;
  std::vector<uint8_t> junk(100, 7);
  EXPECT_FALSE(
      rc::tools::readCubinKernels(junk.data(), junk.size(), kernels, &err));
  EXPECT_EQ(err, "not an ELF file");
}
