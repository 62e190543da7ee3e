// The content cache on a real GPU (rc-server --cache): chunks go from the
// device into the pinned pool by the copy engine, come back from it in
// stream order, and a kernel after them sees the bytes.
#include "gpu_server_fixture.h"
#include "rc/content_hash.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

using namespace rc;
using namespace rc::server;
using namespace rc::server::test;
using Client = MemClient;

namespace {

class GpuCacheTest : public GpuServerTest {
protected:
  void configure(ServerOptions &o) override { o.cacheBytes = 64 << 20; }

  // Waits until the cache holds `chunks` chunks (the verifier publishes
  // them a moment after their copies).
  bool holds(uint64_t chunks) {
    for (int i = 0; i < 500; ++i) {
      if (core.contentCache()->stats().chunks >= chunks)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  // The chunk indices a MemcpyH2DCached's result lists as missing.
  static size_t missing(const wire::Result *r) {
    return r && r->payload() ? r->payload()->size() / 4 : SIZE_MAX;
  }
};

TEST_F(GpuCacheTest, ASecondClientGetsTheUploadFromThePoolAndKernelsSeeIt) {
  ASSERT_NE(core.contentCache(), nullptr);
  const uint64_t chunk = core.contentCache()->options().chunkBytes;
  const int n = int((2 * chunk + (1 << 20)) / 4); // floats: 2 chunks and 1 MiB
  std::vector<float> in(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    in[size_t(i)] = float(i % 100000) * 0.25f;
  Bytes bytes = floats(in);
  std::vector<ContentHash> hashes =
      hashChunks(bytes.data(), bytes.size(), chunk, 4);
  ASSERT_EQ(hashes.size(), 3u);
  {
    Client a = connect();
    Bytes r = a.roundTrip(batch(1, {cMalloc(bytes.size())}));
    uint64_t buf = resultAt(ok(r), 0)->addr();
    r = a.roundTrip(batch(2, {cH2DCached(buf, bytes.size(), hashes)}));
    EXPECT_EQ(missing(resultAt(ok(r), 0)), 3u);
    std::vector<Cmd> upload;
    for (size_t i = 0; i < 3; ++i) {
      uint64_t off = i * chunk,
               len = std::min<uint64_t>(chunk, bytes.size() - off);
      upload.push_back(cH2D(buf + off, Bytes(bytes.begin() + long(off),
                                             bytes.begin() + long(off + len))));
      upload.push_back(cCacheInsert(buf + off, len, hashes[i]));
    }
    // Bytes named with a hash that is not theirs are not kept.
    upload.push_back(cCacheInsert(
        buf, chunk, ContentHash{hashes[0].low ^ 1, hashes[0].high}));
    ok(a.roundTrip(batch(3, upload)));
    ok(a.roundTrip(batch(4, {cDeviceSync()})));
  }
  ASSERT_TRUE(holds(3)) << core.contentCache()->stats().chunks;
  core.contentCache()->settle(); // the wrongly named one too

  Client b = connect();
  Bytes r = b.roundTrip(batch(1, {cMalloc(bytes.size())}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  float factor = 2.5f;
  Bytes factorBytes(4);
  std::memcpy(factorBytes.data(), &factor, 4);
  r = b.roundTrip(
      batch(2, {cSymbolWrite(g.table, 0, factorBytes),
                cH2DCached(buf, bytes.size(), hashes),
                cLaunch(g.scale, scaleArgs(buf, n), 0,
                        {uint32_t((n + 255) / 256), 1, 1}, {256, 1, 1}),
                cD2H(buf, bytes.size())}));
  const wire::BatchReply *br = ok(r);
  EXPECT_EQ(missing(resultAt(br, 1)), 0u);
  const wire::Result *read = resultAt(br, 3);
  ASSERT_NE(read, nullptr);
  ASSERT_EQ(read->payload()->size(), bytes.size());
  std::vector<float> out(static_cast<size_t>(n));
  std::memcpy(out.data(), read->payload()->data(), bytes.size());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[size_t(i)], in[size_t(i)] * 2.5f) << i;
  ContentCache::Stats s = core.contentCache()->stats();
  EXPECT_EQ(s.bytesSaved, bytes.size());
  EXPECT_EQ(s.rejected, 1u);
}

} // namespace
