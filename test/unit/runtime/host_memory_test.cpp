// HostMemory: the client's record of cudaMallocHost blocks (private or
// shared with the server) and cudaHostRegister ranges.
#include "core/host_memory.h"

#include <gtest/gtest.h>

#include <vector>

using rc::rt::HostMemory;

namespace {

TEST(HostMemory, BlocksArePinnedUntilRemovedAndKeepTheirRegion) {
  std::vector<char> a(100), b(100);
  HostMemory m;
  m.addBlock(a.data(), 100);
  m.addBlock(b.data(), 100, 7);
  EXPECT_TRUE(m.isPinned(a.data() + 99));
  EXPECT_FALSE(m.isPinned(a.data() + 100)) << "one past the end";
  size_t size = 0;
  uint64_t region = 1;
  EXPECT_FALSE(m.removeBlock(a.data() + 1, &size, &region)) << "not a start";
  ASSERT_TRUE(m.removeBlock(a.data(), &size, &region));
  EXPECT_EQ(size, 100u);
  EXPECT_EQ(region, 0u) << "private";
  EXPECT_FALSE(m.isPinned(a.data()));
  ASSERT_TRUE(m.removeBlock(b.data(), &size, &region));
  EXPECT_EQ(region, 7u);
}

TEST(HostMemory, RegisteredRangesMayNotMeet) {
  std::vector<char> buf(300);
  char *p = buf.data();
  HostMemory m;
  EXPECT_TRUE(m.registerRange(p + 100, 100));
  EXPECT_FALSE(m.registerRange(p + 150, 10)) << "inside";
  EXPECT_FALSE(m.registerRange(p + 50, 51)) << "runs into it";
  EXPECT_FALSE(m.registerRange(p + 199, 10)) << "starts in its last byte";
  EXPECT_TRUE(m.registerRange(p + 200, 10)) << "right after it";
  EXPECT_TRUE(m.registerRange(p, 100)) << "right before it";
  EXPECT_TRUE(m.isPinned(p + 150));
  EXPECT_FALSE(m.unregisterRange(p + 150)) << "not a start";
  EXPECT_TRUE(m.unregisterRange(p + 100));
  EXPECT_FALSE(m.isPinned(p + 150));
  EXPECT_FALSE(m.registerRange(p + 5, SIZE_MAX)) << "a size that wraps";
}

TEST(HostMemory, SharedRangesAreWithinOneSharedBlock) {
  std::vector<char> shared(4096), priv(4096);
  HostMemory m;
  m.addBlock(shared.data(), 4096, 42);
  m.addBlock(priv.data(), 4096);
  uint64_t region = 0, offset = 0;
  ASSERT_TRUE(m.sharedRange(shared.data() + 96, 4000, &region, &offset));
  EXPECT_EQ(region, 42u);
  EXPECT_EQ(offset, 96u);
  EXPECT_TRUE(m.sharedRange(shared.data() + 4096, 0, &region, &offset))
      << "nothing at its end";
  EXPECT_FALSE(m.sharedRange(shared.data() + 96, 4001, &region, &offset))
      << "past its end";
  EXPECT_FALSE(m.sharedRange(priv.data(), 16, &region, &offset))
      << "a private block";
  EXPECT_FALSE(m.sharedRange(shared.data() - 1, 16, &region, &offset));
}

} // namespace
