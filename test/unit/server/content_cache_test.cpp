// The content cache (rc/server/content_cache.h) on its own, and sessions
// using it on the host test device: what a chunk needs before a lookup
// returns it, namespaces, eviction, sessions at once.
#include "host_session_fixture.h"
#include "rc/server/content_cache.h"
#include "rc/server/errors.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

namespace rc::server::test {
namespace {

constexpr uint64_t kChunk = 64 << 10;

// A cache of `chunks` chunks of kChunk in plain memory.
std::unique_ptr<ContentCache> smallCache(uint64_t chunks) {
  ContentCache::Options o;
  o.capacity = chunks * kChunk;
  o.chunkBytes = kChunk;
  o.minUpload = kChunk;
  return std::make_unique<ContentCache>(
      o, [](uint64_t n) { return static_cast<uint8_t *>(std::malloc(n)); },
      [](uint8_t *p) { std::free(p); });
}

std::vector<uint8_t> pattern(uint64_t size, uint8_t seed) {
  std::vector<uint8_t> b(size);
  for (uint64_t i = 0; i < size; ++i)
    b[i] = uint8_t(seed + i * 7 + (i >> 9));
  return b;
}

// Inserts `bytes` under `hash` (by default their own) and waits for the
// verifier; true when a slot was reserved.
bool insert(ContentCache &cache, const std::string &space,
            const std::vector<uint8_t> &bytes,
            std::optional<ContentHash> hash = std::nullopt) {
  ContentHash h = hash.value_or(hashContent(bytes.data(), bytes.size()));
  std::shared_ptr<ContentCache::Chunk> c =
      cache.reserve(space, h, bytes.size());
  if (!c)
    return false;
  std::memcpy(c->data, bytes.data(), bytes.size());
  cache.verifyLater(std::move(c));
  cache.settle();
  return true;
}

ContentCache::Ref find(ContentCache &cache, const std::string &space,
                       const std::vector<uint8_t> &bytes) {
  return cache.find(space, hashContent(bytes.data(), bytes.size()),
                    bytes.size());
}

TEST(ContentCacheTest, AChunkIsFoundOnlyOnceItsBytesMatchItsHash) {
  auto cache = smallCache(4);
  ASSERT_TRUE(cache->ok());
  auto a = pattern(kChunk, 1);
  ContentHash h = hashContent(a.data(), a.size());
  std::shared_ptr<ContentCache::Chunk> c = cache->reserve("", h, a.size());
  ASSERT_NE(c, nullptr);
  std::memcpy(c->data, a.data(), a.size());
  EXPECT_EQ(cache->find("", h, a.size()), nullptr);    // not verified yet
  EXPECT_EQ(cache->reserve("", h, a.size()), nullptr); // on its way already
  cache->verifyLater(std::move(c));
  cache->settle();
  ContentCache::Ref got = cache->find("", h, a.size());
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(std::memcmp(got->data, a.data(), a.size()), 0);
  EXPECT_EQ(cache->find("", h, a.size() - 1), nullptr); // size is in the name

  // Bytes that are not what the hash says are never published.
  auto b = pattern(kChunk, 2);
  ContentHash other{h.low ^ 1, h.high};
  ASSERT_TRUE(insert(*cache, "", b, other));
  EXPECT_EQ(cache->find("", other, b.size()), nullptr);
  ContentCache::Stats s = cache->stats();
  EXPECT_EQ(s.inserted, 1u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.bytesSaved, kChunk);
  EXPECT_EQ(s.chunks, 1u);
}

TEST(ContentCacheTest, NamespacesDoNotShareChunks) {
  auto cache = smallCache(4);
  auto a = pattern(kChunk, 3);
  ASSERT_TRUE(insert(*cache, "team-a", a));
  EXPECT_NE(find(*cache, "team-a", a), nullptr);
  EXPECT_EQ(find(*cache, "team-b", a), nullptr);
  EXPECT_EQ(find(*cache, "", a), nullptr);
  EXPECT_EQ(cache->list("team-b").size(), 0u);
  ASSERT_EQ(cache->list("team-a").size(), 1u);
  // The same bytes in another namespace are a chunk of their own.
  EXPECT_TRUE(insert(*cache, "team-b", a));
  EXPECT_EQ(cache->stats().chunks, 2u);
}

TEST(ContentCacheTest, TheLeastRecentlyUsedChunkNobodyReadsMakesRoom) {
  auto cache = smallCache(2);
  auto a = pattern(kChunk, 4), b = pattern(kChunk, 5), c = pattern(kChunk, 6),
       d = pattern(kChunk, 7);
  ASSERT_TRUE(insert(*cache, "", a));
  ASSERT_TRUE(insert(*cache, "", b));
  ASSERT_NE(find(*cache, "", a), nullptr); // a is now the more recent
  ASSERT_TRUE(insert(*cache, "", c));      // b goes
  EXPECT_EQ(find(*cache, "", b), nullptr);
  EXPECT_EQ(cache->stats().evicted, 1u);
  // Chunks being read (a copy holds their Ref) are never taken.
  ContentCache::Ref readingA = find(*cache, "", a);
  ContentCache::Ref readingC = find(*cache, "", c);
  ASSERT_NE(readingA, nullptr);
  ASSERT_NE(readingC, nullptr);
  EXPECT_FALSE(insert(*cache, "", d));
  EXPECT_EQ(cache->stats().refused, 1u);
  EXPECT_EQ(std::memcmp(readingA->data, a.data(), a.size()), 0);
  readingA.reset(); // its copy is done: a may go now
  EXPECT_TRUE(insert(*cache, "", d));
  EXPECT_EQ(find(*cache, "", a), nullptr);
  EXPECT_EQ(std::memcmp(readingC->data, c.data(), c.size()), 0);
}

// A chunk used again (a model's weights, loaded twice) outlives any number
// of chunks used once (a prompt's activations): those make room among
// themselves.
TEST(ContentCacheTest, AChunkUsedAgainOutlivesChunksUsedOnce) {
  auto cache = smallCache(4);
  auto weights = pattern(kChunk, 70);
  ASSERT_TRUE(insert(*cache, "", weights));
  ASSERT_NE(find(*cache, "", weights), nullptr);
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(insert(*cache, "", pattern(kChunk, uint8_t(80 + i))));
  EXPECT_NE(find(*cache, "", weights), nullptr);
  EXPECT_EQ(cache->stats().evicted, 17u); // 20 in 3 slots of probation
}

TEST(ContentCacheTest, EvictionByNameOrAllSparesOtherNamespaces) {
  auto cache = smallCache(4);
  auto a = pattern(kChunk, 8), b = pattern(kChunk, 9);
  ASSERT_TRUE(insert(*cache, "x", a));
  ASSERT_TRUE(insert(*cache, "x", b));
  ASSERT_TRUE(insert(*cache, "y", a));
  EXPECT_EQ(cache->evict("x", {hashContent(a.data(), a.size())}), 1u);
  EXPECT_EQ(find(*cache, "x", a), nullptr);
  EXPECT_NE(find(*cache, "x", b), nullptr);
  EXPECT_EQ(cache->evict("x", {}), 1u);
  EXPECT_EQ(find(*cache, "x", b), nullptr);
  EXPECT_NE(find(*cache, "y", a), nullptr);
}

// Sessions insert and read the same and different chunks at once, with
// fewer slots than chunks: every chunk found holds its own bytes.
TEST(ContentCacheTest, ManyThreadsAtOnceFindOnlyRightBytes) {
  auto cache = smallCache(6);
  std::vector<std::vector<uint8_t>> chunks;
  for (int i = 0; i < 12; ++i)
    chunks.push_back(pattern(kChunk, uint8_t(20 + i)));
  std::atomic<int> wrong{0}, found{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        const auto &bytes = chunks[size_t((t + round) % 12)];
        ContentHash h = hashContent(bytes.data(), bytes.size());
        if (ContentCache::Ref r = cache->find("", h, bytes.size())) {
          ++found;
          if (std::memcmp(r->data, bytes.data(), bytes.size()))
            ++wrong;
        } else if (auto c = cache->reserve("", h, bytes.size())) {
          std::memcpy(c->data, bytes.data(), bytes.size());
          cache->verifyLater(std::move(c));
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  cache->settle();
  // On a loaded machine the threads may all have run before any insert was
  // verified; once settled, the chunks kept are found, with their bytes.
  for (const auto &bytes : chunks)
    if (ContentCache::Ref r = cache->find(
            "", hashContent(bytes.data(), bytes.size()), bytes.size())) {
      ++found;
      if (std::memcmp(r->data, bytes.data(), bytes.size()))
        ++wrong;
    }
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(found, 0);
  ContentCache::Stats s = cache->stats();
  EXPECT_LE(s.chunks, 6u);
  EXPECT_EQ(s.rejected, 0u);
}

// A fresh directory, removed with everything in it at the end.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/rc-chunk-files-XXXXXX";
    path = mkdtemp(tmpl) ? tmpl : "";
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(ChunkFilesTest, KeepsChunksAsFilesWithinItsBoundAndFindsThemAgain) {
  TempDir dir;
  auto a = pattern(kChunk, 90), b = pattern(kChunk, 91),
       c = pattern(kChunk, 92);
  ContentHash ha = hashContent(a.data(), kChunk),
              hb = hashContent(b.data(), kChunk),
              hc = hashContent(c.data(), kChunk);
  {
    ChunkFiles files;
    std::string why;
    ASSERT_TRUE(files.open(dir.path, 2 * kChunk, &why)) << why;
    EXPECT_TRUE(files.write("team-a", ha, kChunk, a.data()));
    EXPECT_TRUE(files.write("../team-b", hb, kChunk, b.data()));
    std::vector<uint8_t> back(kChunk);
    ASSERT_TRUE(files.read("team-a", ha, kChunk, back.data()));
    EXPECT_EQ(back, a);
    EXPECT_FALSE(files.has("team-b", hb, kChunk)); // namespaces apart
    // A third chunk past the bound: the least recently used file goes.
    EXPECT_TRUE(files.write("", hc, kChunk, c.data()));
    EXPECT_EQ(files.count(), 2u);
    EXPECT_TRUE(files.has("team-a", ha, kChunk));
    EXPECT_FALSE(files.has("../team-b", hb, kChunk));
  }
  // Names that are no chunk files stay and are not indexed.
  {
    std::ofstream(dir.path + "/ns-/not-a-chunk") << "x";
  }
  ChunkFiles again;
  std::string why;
  ASSERT_TRUE(again.open(dir.path, 2 * kChunk, &why)) << why;
  EXPECT_EQ(again.count(), 2u);
  EXPECT_EQ(again.bytes(), 2 * kChunk);
  EXPECT_TRUE(again.has("team-a", ha, kChunk));
  EXPECT_TRUE(again.has("", hc, kChunk));
  // Nothing outside its directory was written.
  for (const auto &e : std::filesystem::directory_iterator(dir.path))
    EXPECT_EQ(e.path().filename().string().rfind("ns-", 0), 0u) << e.path();
}

TEST(ContentCacheTest, TheDiskTierOutlivesTheCacheAndIsCheckedWhenRead) {
  TempDir dir;
  auto a = pattern(kChunk, 93);
  ContentHash h = hashContent(a.data(), kChunk);
  auto withFiles = [&] {
    auto cache = smallCache(4);
    auto files = std::make_unique<ChunkFiles>();
    std::string why;
    EXPECT_TRUE(files->open(dir.path, 8 * kChunk, &why)) << why;
    cache->useDiskTier(std::move(files));
    return cache;
  };
  {
    auto cache = withFiles();
    ASSERT_TRUE(insert(*cache, "t", a));
    EXPECT_EQ(cache->stats().diskChunks, 1u);
  }
  {
    auto restarted = withFiles(); // a new server: an empty pool
    ContentCache::Ref got = restarted->find("t", h, kChunk);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(std::memcmp(got->data, a.data(), kChunk), 0);
    EXPECT_EQ(restarted->stats().diskHits, 1u);
    EXPECT_EQ(restarted->find("u", h, kChunk), nullptr); // namespaces apart
  }
  {
    auto again = withFiles();
    ASSERT_NE(again->find("t", h, kChunk), nullptr);
    // Eviction takes the file too: the chunk does not come back.
    EXPECT_EQ(again->evict("t", {h}), 1u);
    EXPECT_EQ(again->find("t", h, kChunk), nullptr);
    EXPECT_EQ(again->stats().diskChunks, 0u);
    ASSERT_TRUE(insert(*again, "t", a)); // and on disk again
  }
  // A file whose bytes changed on disk is dropped, never used.
  std::string path;
  for (const auto &e : std::filesystem::recursive_directory_iterator(dir.path))
    if (e.is_regular_file())
      path = e.path();
  ASSERT_FALSE(path.empty());
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put(char(a[100] ^ 1));
  }
  auto third = withFiles();
  EXPECT_EQ(third->find("t", h, kChunk), nullptr);
  EXPECT_EQ(third->stats().diskChunks, 0u);
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Sessions on the host test device with a cache of 4 chunks of kChunk.
class CacheSessionTest : public HostSessionTest {
protected:
  void SetUp() override {
    HostSessionTest::SetUp();
    cache = smallCache(4);
    env->cache = cache.get();
    session = std::make_unique<Session>(*env, 7);
  }
  // The session's copies hold chunks of the cache: it goes first.
  void TearDown() override { session.reset(); }
  // The chunk indices a MemcpyH2DCached's result lists as missing.
  static std::vector<uint32_t> missing(const wire::Result *r) {
    std::vector<uint32_t> out;
    if (r && r->payload())
      for (size_t i = 0; i + 4 <= r->payload()->size(); i += 4) {
        uint32_t v;
        std::memcpy(&v, r->payload()->data() + i, 4);
        out.push_back(v);
      }
    return out;
  }
  std::unique_ptr<ContentCache> cache;
};

TEST_F(CacheSessionTest, ASecondSessionGetsTheFirstOnesUploadFromTheCache) {
  open();
  uint64_t size = 2 * kChunk + 100; // the last chunk is shorter
  std::vector<uint8_t> data = pattern(size, 40);
  std::vector<ContentHash> hashes = hashChunks(data.data(), size, kChunk);
  ASSERT_EQ(hashes.size(), 3u);
  uint64_t dst = malloc(size);
  Bytes r = send1(batch(2, {cH2DCached(dst, size, hashes)}));
  EXPECT_EQ(missing(resultAt(asBatchReply(r), 0)),
            (std::vector<uint32_t>{0, 1, 2}));
  std::vector<Cmd> upload;
  for (uint64_t i = 0; i < 3; ++i) {
    uint64_t n = std::min(kChunk, size - i * kChunk);
    upload.push_back(
        cH2D(dst + i * kChunk,
             Bytes(data.begin() + i * kChunk, data.begin() + i * kChunk + n)));
    upload.push_back(cCacheInsert(dst + i * kChunk, n, hashes[i]));
  }
  send1(batch(3, upload));
  send1(batch(4, {cGoodbye()}));
  session.reset(); // the session's copies are handed to the verifier
  cache->settle();
  EXPECT_EQ(cache->stats().chunks, 3u);

  session = std::make_unique<Session>(*env, 8);
  open();
  uint64_t dst2 = malloc(size);
  r = send1(batch(2, {cH2DCached(dst2, size, hashes), cD2H(dst2, size)}));
  const wire::BatchReply *br = asBatchReply(r);
  EXPECT_TRUE(missing(resultAt(br, 0)).empty());
  const wire::Result *read = resultAt(br, 1);
  ASSERT_NE(read, nullptr);
  ASSERT_NE(read->payload(), nullptr);
  EXPECT_EQ(Bytes(read->payload()->begin(), read->payload()->end()), data);
  EXPECT_EQ(cache->stats().bytesSaved, size);
}

TEST_F(CacheSessionTest, BytesThatAreNotTheirHashAreNotKept) {
  open();
  std::vector<uint8_t> data = pattern(kChunk, 50);
  ContentHash lie = hashContent(pattern(kChunk, 51).data(), kChunk);
  uint64_t dst = malloc(kChunk);
  send1(batch(2, {cH2D(dst, data), cCacheInsert(dst, kChunk, lie)}));
  send1(batch(3, {cCacheControl(false)})); // waits for the verifier
  EXPECT_EQ(cache->stats().rejected, 1u);
  Bytes r = send1(batch(4, {cH2DCached(dst, kChunk, {lie})}));
  EXPECT_EQ(missing(resultAt(asBatchReply(r), 0)), (std::vector<uint32_t>{0}));
}

TEST_F(CacheSessionTest, ListsAndEvictsItsNamespacesChunks) {
  open();
  std::vector<uint8_t> data = pattern(kChunk, 60);
  ContentHash h = hashContent(data.data(), kChunk);
  uint64_t dst = malloc(kChunk);
  send1(batch(2, {cH2D(dst, data), cCacheInsert(dst, kChunk, h)}));
  Bytes r = send1(batch(3, {cCacheControl(false)}));
  const wire::Result *res = resultAt(asBatchReply(r), 0);
  ASSERT_NE(res, nullptr);
  std::string json(res->payload()->begin(), res->payload()->end());
  EXPECT_NE(json.find("\"chunks_held\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find(h.hex()), std::string::npos) << json;
  r = send1(batch(4, {cCacheControl(true, {h})}));
  res = resultAt(asBatchReply(r), 0);
  json.assign(res->payload()->begin(), res->payload()->end());
  EXPECT_NE(json.find("\"evicted\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"chunks_held\": 0"), std::string::npos) << json;
}

// A tenant's report shows its own chunks only: nothing in it moves when
// another tenant's uploads fill the pool (the pool's size and use are the
// operator's, in --metrics).
TEST_F(CacheSessionTest, AReportMovesOnlyWithItsOwnTenantsChunks) {
  open();
  std::vector<uint8_t> data = pattern(kChunk, 70);
  ContentHash h = hashContent(data.data(), kChunk);
  uint64_t dst = malloc(kChunk);
  send1(batch(2, {cH2D(dst, data), cCacheInsert(dst, kChunk, h)}));
  auto report = [&](uint64_t seq) {
    Bytes r = send1(batch(seq, {cCacheControl(false)}));
    const wire::Result *res = resultAt(asBatchReply(r), 0);
    return res && res->payload()
               ? std::string(res->payload()->begin(), res->payload()->end())
               : std::string();
  };
  std::string before = report(3);
  EXPECT_NE(before.find("\"chunks_held\": 1"), std::string::npos) << before;
  for (uint8_t i = 0; i < 2; ++i) // half the pool, another namespace
    ASSERT_TRUE(insert(*cache, "team-b", pattern(kChunk, uint8_t(80 + i))));
  EXPECT_EQ(cache->stats().chunks, 3u);
  std::string after = report(4);
  EXPECT_EQ(after, before);
  for (const char *operatorsOnly : {"capacity", "pool", "inserted", "saved"})
    EXPECT_EQ(before.find(operatorsOnly), std::string::npos)
        << operatorsOnly << " in " << before;
}

TEST_F(CacheSessionTest, MalformedUploadsAreRefusedNamingWhy) {
  open();
  uint64_t dst = malloc(kChunk);
  std::vector<ContentHash> two(2);
  std::string why = expectError(batch(2, {cH2DCached(dst, kChunk, two)}), 0,
                                kErrInvalidValue, 2);
  EXPECT_NE(why.find("2 chunk hashes for an upload of 65536 bytes"),
            std::string::npos)
      << why;
  why = expectError(batch(3, {cH2DCached(dst, 2 * kChunk, two)}), 0,
                    kErrInvalidValue, 3);
  EXPECT_NE(why.find("destination"), std::string::npos) << why;
  why = expectError(batch(4, {cCacheInsert(dst + 8, kChunk, {})}), 0,
                    kErrInvalidValue, 4);
  EXPECT_NE(why.find("source"), std::string::npos) << why;
}

TEST_F(HostSessionTest, WithoutACacheItsCommandsFailNamingTheFlag) {
  open();
  uint64_t dst = malloc(kChunk);
  std::string why =
      expectError(batch(2, {cH2DCached(dst, kChunk, {ContentHash{}})}), 0,
                  kErrInvalidValue, 2);
  EXPECT_NE(why.find("rc-server --cache"), std::string::npos) << why;
}

} // namespace
} // namespace rc::server::test
