// The content cache on a real GPU (rc-server --cache): chunks go from the
// device into the pinned pool by the copy engine (on a stream of their
// own), come back from it in stream order, and a kernel after them sees
// the bytes.
#include "gpu_server_fixture.h"
#include "rc/content_hash.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
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
  // Two chunks and 1 MiB of floats, and their chunks' hashes.
  void makeUpload(std::vector<float> *in, Bytes *bytes,
                  std::vector<ContentHash> *hashes) {
    const uint64_t chunk = core.contentCache()->options().chunkBytes;
    const int n = int((2 * chunk + (1 << 20)) / 4);
    in->resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      (*in)[size_t(i)] = float(i % 100000) * 0.25f;
    *bytes = floats(*in);
    *hashes = hashChunks(bytes->data(), bytes->size(), chunk);
  }
  // Each chunk's upload, then its insertion into the cache.
  std::vector<Cmd> uploadAndInsert(uint64_t buf, const Bytes &bytes,
                                   const std::vector<ContentHash> &hashes) {
    const uint64_t chunk = core.contentCache()->options().chunkBytes;
    std::vector<Cmd> upload;
    for (size_t i = 0; i < hashes.size(); ++i) {
      uint64_t off = i * chunk,
               len = std::min<uint64_t>(chunk, bytes.size() - off);
      upload.push_back(cH2D(buf + off, Bytes(bytes.begin() + long(off),
                                             bytes.begin() + long(off + len))));
      upload.push_back(cCacheInsert(buf + off, len, hashes[i]));
    }
    return upload;
  }
  // The test kernel multiplying `n` floats at `buf` by `factor`.
  std::vector<Cmd> scale(uint64_t buf, int n, float factor) {
    Bytes factorBytes(4);
    std::memcpy(factorBytes.data(), &factor, 4);
    return {cSymbolWrite(g.table, 0, factorBytes),
            cLaunch(g.scale, scaleArgs(buf, n), 0,
                    {uint32_t((n + 255) / 256), 1, 1}, {256, 1, 1})};
  }
  static std::vector<float> floatsOf(const wire::Result *read) {
    std::vector<float> out(read && read->payload() ? read->payload()->size() / 4
                                                   : 0);
    if (!out.empty())
      std::memcpy(out.data(), read->payload()->data(), out.size() * 4);
    return out;
  }
  // The chunk indices a MemcpyH2DCached's result lists as missing.
  static size_t missing(const wire::Result *r) {
    return r && r->payload() ? r->payload()->size() / 4 : SIZE_MAX;
  }
};

TEST_F(GpuCacheTest, ASecondClientGetsTheUploadFromThePoolAndKernelsSeeIt) {
  ASSERT_NE(core.contentCache(), nullptr);
  std::vector<float> in;
  Bytes bytes;
  std::vector<ContentHash> hashes;
  makeUpload(&in, &bytes, &hashes);
  ASSERT_EQ(hashes.size(), 3u);
  const int n = int(in.size());
  {
    Client a = connect();
    Bytes r = a.roundTrip(batch(1, {cMalloc(bytes.size())}));
    uint64_t buf = resultAt(ok(r), 0)->addr();
    r = a.roundTrip(batch(2, {cH2DCached(buf, bytes.size(), hashes)}));
    EXPECT_EQ(missing(resultAt(ok(r), 0)), 3u);
    std::vector<Cmd> upload = uploadAndInsert(buf, bytes, hashes);
    // Bytes named with a hash that is not theirs are not kept.
    upload.push_back(
        cCacheInsert(buf, core.contentCache()->options().chunkBytes,
                     ContentHash{hashes[0].low ^ 1, hashes[0].high}));
    ok(a.roundTrip(batch(3, upload)));
    ok(a.roundTrip(batch(4, {cDeviceSync()})));
  }
  ASSERT_TRUE(holds(3)) << core.contentCache()->stats().chunks;
  core.contentCache()->settle(); // the wrongly named one too

  Client b = connect();
  Bytes r = b.roundTrip(batch(1, {cMalloc(bytes.size())}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  std::vector<Cmd> cmds = {cH2DCached(buf, bytes.size(), hashes)};
  for (Cmd &c : scale(buf, n, 2.5f))
    cmds.push_back(std::move(c));
  cmds.push_back(cD2H(buf, bytes.size()));
  r = b.roundTrip(batch(2, cmds));
  const wire::BatchReply *br = ok(r);
  EXPECT_EQ(missing(resultAt(br, 0)), 0u);
  std::vector<float> out = floatsOf(resultAt(br, 3));
  ASSERT_EQ(out.size(), in.size());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[size_t(i)], in[size_t(i)] * 2.5f) << i;
  ContentCache::Stats s = core.contentCache()->stats();
  EXPECT_EQ(s.bytesSaved, bytes.size());
  EXPECT_EQ(s.rejected, 1u);
}

// The copy into the pool runs beside the upload's stream, so a kernel that
// changes the bytes right after their upload may run first: such a chunk
// must be rejected, never kept under the hash of the bytes uploaded. A
// second client gets the uploaded bytes, from the pool or sent again.
TEST_F(GpuCacheTest, BytesChangedRightAfterTheirUploadAreNeverServed) {
  ASSERT_NE(core.contentCache(), nullptr);
  std::vector<float> in;
  Bytes bytes;
  std::vector<ContentHash> hashes;
  makeUpload(&in, &bytes, &hashes);
  const int n = int(in.size());
  {
    Client a = connect();
    Bytes r = a.roundTrip(batch(1, {cMalloc(bytes.size())}));
    uint64_t buf = resultAt(ok(r), 0)->addr();
    std::vector<Cmd> cmds = uploadAndInsert(buf, bytes, hashes);
    for (Cmd &c : scale(buf, n, -1.0f))
      cmds.push_back(std::move(c));
    cmds.push_back(cDeviceSync());
    ok(a.roundTrip(batch(2, cmds)));
    // A batch's start hands the finished copies to the verifier.
    ok(a.roundTrip(batch(3, {cDeviceSync()})));
  }
  core.contentCache()->settle();
  ContentCache::Stats s = core.contentCache()->stats();
  EXPECT_EQ(s.chunks + s.rejected, 3u) << s.chunks << " kept";

  Client b = connect();
  Bytes r = b.roundTrip(batch(1, {cMalloc(bytes.size())}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  r = b.roundTrip(batch(2, {cH2DCached(buf, bytes.size(), hashes)}));
  const wire::Result *answer = resultAt(ok(r), 0);
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(missing(answer), s.rejected);
  const uint64_t chunk = core.contentCache()->options().chunkBytes;
  std::vector<Cmd> resend;
  for (size_t i = 0; i < missing(answer); ++i) {
    uint32_t index;
    std::memcpy(&index, answer->payload()->data() + 4 * i, 4);
    uint64_t off = index * chunk,
             len = std::min<uint64_t>(chunk, bytes.size() - off);
    resend.push_back(cH2D(buf + off, Bytes(bytes.begin() + long(off),
                                           bytes.begin() + long(off + len))));
  }
  resend.push_back(cD2H(buf, bytes.size()));
  r = b.roundTrip(batch(3, resend));
  std::vector<float> out = floatsOf(resultAt(ok(r), resend.size() - 1));
  ASSERT_EQ(out.size(), in.size());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[size_t(i)], in[size_t(i)]) << i;
}

// An upload and its CacheInsert on one stream, and on another stream, with
// nothing ordering the two, a copy that overwrites the same bytes: the
// pool's copy may read them before or after the overwrite, on the copy
// engines' schedule. Whatever it read, the cache serves a chunk under a
// hash only if the bytes are that hash's: a second client that gets any
// of them from the pool reads exactly what was uploaded under it, never
// the overwrite.
TEST_F(GpuCacheTest, AnOverwriteByACopyOnAnotherStreamIsNeverServed) {
  ASSERT_NE(core.contentCache(), nullptr);
  const uint64_t chunk = core.contentCache()->options().chunkBytes;
  constexpr int kRounds = 12; // 48 MiB of the 64 MiB pool
  std::vector<Bytes> uploaded;
  std::vector<ContentHash> names;
  for (int i = 0; i < kRounds; ++i) {
    Bytes b(chunk);
    for (uint64_t j = 0; j < chunk; ++j)
      b[j] = uint8_t(i * 37 + j * 13 + (j >> 11));
    names.push_back(hashContent(b.data(), b.size()));
    uploaded.push_back(std::move(b));
  }
  {
    Client a = connect();
    Bytes r = a.roundTrip(
        batch(1, {cMalloc(chunk), cStreamCreate(11), cStreamCreate(12)}));
    uint64_t buf = resultAt(ok(r), 0)->addr();
    Bytes overwrite(chunk, 0xee);
    for (int i = 0; i < kRounds; ++i) {
      // Stream 12 waits for nothing of stream 11: the overwrite and the
      // pool's copy race. A spin first on stream 11 now and then moves
      // the upload later, so each order happens.
      std::vector<Cmd> cmds;
      if (i % 3 == 1) {
        Bytes spin(8);
        long long cycles = 20000000LL; // ~10 ms
        std::memcpy(spin.data(), &cycles, 8);
        cmds.push_back(cLaunch(g.spin, spin, 11, {1, 1, 1}, {1, 1, 1}));
      }
      cmds.push_back(cH2D(buf, uploaded[size_t(i)], 11));
      cmds.push_back(cCacheInsert(buf, chunk, names[size_t(i)], 11));
      cmds.push_back(cH2D(buf, overwrite, 12));
      cmds.push_back(cDeviceSync());
      ok(a.roundTrip(batch(uint64_t(2 + i), cmds)));
    }
    // A batch's start hands the finished copies to the verifier.
    ok(a.roundTrip(batch(100, {cDeviceSync()})));
  }
  core.contentCache()->settle();
  ContentCache::Stats s = core.contentCache()->stats();
  EXPECT_EQ(s.chunks + s.rejected, uint64_t(kRounds))
      << s.chunks << " kept, " << s.rejected << " rejected";
  std::printf("[ overwrite race ] %llu of %d chunks kept, %llu rejected\n",
              (unsigned long long)s.chunks, kRounds,
              (unsigned long long)s.rejected);

  Client b = connect();
  Bytes r = b.roundTrip(batch(1, {cMalloc(chunk)}));
  uint64_t buf = resultAt(ok(r), 0)->addr();
  int served = 0;
  for (int i = 0; i < kRounds; ++i) {
    r = b.roundTrip(
        batch(uint64_t(2 + i),
              {cH2DCached(buf, chunk, {names[size_t(i)]}), cD2H(buf, chunk)}));
    const wire::BatchReply *br = ok(r);
    if (missing(resultAt(br, 0)) != 0)
      continue; // rejected: the client would send it again
    ++served;
    const wire::Result *read = resultAt(br, 1);
    ASSERT_TRUE(read && read->payload());
    ASSERT_EQ(Bytes(read->payload()->begin(), read->payload()->end()),
              uploaded[size_t(i)])
        << "round " << i << ": the pool served other bytes under its hash";
  }
  EXPECT_EQ(uint64_t(served), s.chunks);
}

} // namespace
