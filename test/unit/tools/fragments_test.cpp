#include "common/fragments.h"
#include "test_manifests.h"

#include <gtest/gtest.h>

using rc::tools::frameFragment;
using rc::tools::splitFragments;

TEST(Fragments, FrameHasMagicLengthAndBytes) {
  std::vector<uint8_t> m = rc::test::fragment("a.cu", {{1, "_Z1av", {}}});
  std::vector<uint8_t> f = frameFragment(m);
  ASSERT_EQ(f.size(), m.size() + 16);
  EXPECT_EQ(std::string(f.begin(), f.begin() + 8), "RCFRAG01");
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i)
    len |= uint64_t(f[8 + i]) << (8 * i);
  EXPECT_EQ(len, m.size());
  EXPECT_TRUE(std::equal(m.begin(), m.end(), f.begin() + 16));
}

TEST(Fragments, SplitSkipsLinkerPadding) {
  std::vector<uint8_t> a = frameFragment(rc::test::fragment("a.cu", {}));
  std::vector<uint8_t> b = frameFragment(rc::test::fragment("b.cu", {}));
  std::vector<uint8_t> all = a;
  all.insert(all.end(), 5, 0); // alignment padding between two sections
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), 3, 0);
  std::vector<std::vector<uint8_t>> out;
  std::string err;
  ASSERT_TRUE(splitFragments(all.data(), all.size(), out, &err)) << err;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(rc::manifest::GetManifest(out[1].data())
                ->modules()
                ->Get(0)
                ->source()
                ->str(),
            "b.cu");
}

TEST(Fragments, SplitRejectsBadMagicTruncationAndCorruptBuffers) {
  std::vector<uint8_t> f = frameFragment(rc::test::fragment("a.cu", {}));
  std::vector<std::vector<uint8_t>> out;
  std::string err;
  std::vector<uint8_t> bad = f;
  bad[0] = 'X';
  EXPECT_FALSE(splitFragments(bad.data(), bad.size(), out, &err));
  EXPECT_NE(err.find("bad fragment frame at offset 0"), std::string::npos);
  EXPECT_FALSE(splitFragments(f.data(), f.size() - 1, out, &err));
  EXPECT_NE(err.find("truncated"), std::string::npos);
  std::vector<uint8_t> corrupt = f;
  corrupt[16 + 4] ^= 0xff; // the RCMF identifier
  EXPECT_FALSE(splitFragments(corrupt.data(), corrupt.size(), out, &err));
  EXPECT_NE(err.find("fragment 0"), std::string::npos);
}
