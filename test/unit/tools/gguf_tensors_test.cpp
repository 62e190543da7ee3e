// rc-cache's GGUF reader: tensor ranges of files written here byte by byte
// (every key-value type, nested arrays, an alignment), and clear errors,
// never a read outside the file, for damaged ones.
#include "gguf_tensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using rc::tools::GgufTensor;
using rc::tools::looksLikeGguf;
using rc::tools::readGgufTensors;

namespace {

// Writes a GGUF file the way llama.cpp's writer lays it out.
class GgufWriter {
public:
  explicit GgufWriter(uint32_t version = 3) {
    u32(0x46554747);
    u32(version);
    countsAt_ = bytes_.size();
    u64(0); // tensors
    u64(0); // key-values
  }
  void u8(uint8_t v) { bytes_.push_back(v); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void str(const std::string &s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  // A key and its type; the caller writes the value.
  void key(const std::string &k, uint32_t type) {
    str(k);
    u32(type);
    ++kvs_;
  }
  void tensor(const std::string &name, std::vector<uint64_t> dims,
              uint32_t type, uint64_t offset) {
    str(name);
    u32(uint32_t(dims.size()));
    for (uint64_t d : dims)
      u64(d);
    u32(type);
    u64(offset);
    ++tensors_;
  }
  // Pads to `alignment`, then `dataBytes` bytes of data.
  std::vector<uint8_t> finish(uint64_t alignment, uint64_t dataBytes) {
    std::memcpy(&bytes_[countsAt_], &tensors_, 8);
    std::memcpy(&bytes_[countsAt_ + 8], &kvs_, 8);
    while (bytes_.size() % alignment)
      bytes_.push_back(0);
    start_ = bytes_.size();
    bytes_.resize(bytes_.size() + dataBytes, 0x5a);
    return bytes_;
  }
  uint64_t dataStart() const { return start_; }

private:
  void raw(const void *p, size_t n) {
    auto *b = static_cast<const uint8_t *>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::vector<uint8_t> bytes_;
  size_t countsAt_ = 0;
  uint64_t tensors_ = 0, kvs_ = 0;
  uint64_t start_ = 0;
};

// A model-like file: key-values of every type, alignment 64, three
// tensors of different types with padding between them.
std::vector<uint8_t> modelFile(uint64_t *dataStart) {
  GgufWriter w;
  w.key("general.architecture", 8);
  w.str("llama");
  w.key("llama.block_count", 4);
  w.u32(2);
  w.key("general.alignment", 4);
  w.u32(64);
  w.key("a.u8", 0);
  w.u8(1);
  w.key("a.i16", 3);
  w.u8(0), w.u8(0);
  w.key("a.f64", 12);
  w.u64(0);
  w.key("a.bool", 7);
  w.u8(1);
  w.key("tokenizer.ggml.tokens", 9); // array of strings
  w.u32(8);
  w.u64(3);
  w.str("a"), w.str("bb"), w.str("ccc");
  w.key("a.nested", 9); // array of arrays of u32
  w.u32(9);
  w.u64(2);
  for (int i = 0; i < 2; ++i) {
    w.u32(4);
    w.u64(2);
    w.u32(7), w.u32(8);
  }
  w.key("a.scores", 9); // array of floats
  w.u32(6);
  w.u64(3);
  w.u32(0), w.u32(0), w.u32(0);
  // F32 10x3 = 120 bytes; Q4_0 64x2 = 4 blocks of 18 = 72; Q6_K 512 = 2
  // blocks of 210 = 420. Offsets padded to 64.
  w.tensor("output_norm.weight", {10, 3}, 0, 0);
  w.tensor("blk.0.attn_q.weight", {64, 2}, 2, 128);
  w.tensor("token_embd.weight", {512}, 14, 256);
  std::vector<uint8_t> f = w.finish(64, 256 + 420);
  *dataStart = w.dataStart();
  return f;
}

TEST(GgufTensors, RangesOfEachTensorAfterTheAlignedHeader) {
  uint64_t start = 0;
  std::vector<uint8_t> f = modelFile(&start);
  ASSERT_TRUE(looksLikeGguf(f.data(), f.size()));
  ASSERT_EQ(start % 64, 0u);
  std::vector<GgufTensor> t;
  std::string why;
  ASSERT_TRUE(readGgufTensors(f.data(), f.size(), &t, &why)) << why;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "output_norm.weight");
  EXPECT_EQ(t[0].offset, start);
  EXPECT_EQ(t[0].size, 120u);
  EXPECT_EQ(t[1].name, "blk.0.attn_q.weight");
  EXPECT_EQ(t[1].offset, start + 128);
  EXPECT_EQ(t[1].size, 72u);
  EXPECT_EQ(t[2].offset, start + 256);
  EXPECT_EQ(t[2].size, 420u);
}

TEST(GgufTensors, DefaultAlignmentIs32) {
  GgufWriter w(2);
  w.key("general.name", 8);
  w.str("x");
  w.tensor("t", {8}, 0, 0);
  std::vector<uint8_t> f = w.finish(32, 32);
  std::vector<GgufTensor> t;
  std::string why;
  ASSERT_TRUE(readGgufTensors(f.data(), f.size(), &t, &why)) << why;
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].offset % 32, 0u);
  EXPECT_EQ(t[0].offset, w.dataStart());
  EXPECT_EQ(t[0].size, 32u);
}

// Every shorter prefix of a good file is refused with a reason, and is
// read only within its bounds (the sanitizer build would see a stray read).
TEST(GgufTensors, EveryTruncationIsRefused) {
  uint64_t start = 0;
  std::vector<uint8_t> f = modelFile(&start);
  for (size_t n = 0; n < f.size(); ++n) {
    std::vector<uint8_t> cut(f.begin(), f.begin() + long(n));
    std::vector<GgufTensor> t;
    std::string why;
    EXPECT_FALSE(readGgufTensors(cut.data(), cut.size(), &t, &why)) << n;
    EXPECT_FALSE(why.empty()) << n;
  }
}

TEST(GgufTensors, DamagedFilesAreRefusedByName) {
  auto refuse = [](const std::vector<uint8_t> &f, const std::string &words) {
    std::vector<GgufTensor> t;
    std::string why;
    EXPECT_FALSE(readGgufTensors(f.data(), f.size(), &t, &why));
    EXPECT_NE(why.find(words), std::string::npos) << why;
  };
  {
    GgufWriter w(1);
    refuse(w.finish(32, 0), "GGUF version 1");
  }
  {
    GgufWriter w;
    w.tensor("t", {8}, 4, 0); // Q4_2, retired
    refuse(w.finish(32, 64), "ggml type 4");
  }
  {
    GgufWriter w;
    w.tensor("t", {33}, 2, 0); // Q4_0 rows must be whole 32-element blocks
    refuse(w.finish(32, 64), "not whole 32-element blocks");
  }
  {
    GgufWriter w;
    w.tensor("t", {64}, 0, 0); // 256 bytes, the file has 64
    refuse(w.finish(32, 64), "lies outside the file");
  }
  {
    GgufWriter w;
    w.tensor("t", {8}, 0, ~uint64_t(0) - 8); // an offset that wraps
    refuse(w.finish(32, 64), "lies outside the file");
  }
  {
    GgufWriter w;
    w.tensor("t", {1ull << 40, 1ull << 40}, 0, 0);
    refuse(w.finish(32, 64), "too many elements");
  }
  {
    GgufWriter w;
    w.key("general.alignment", 4);
    w.u32(48);
    refuse(w.finish(32, 0), "not a power of two");
  }
  {
    GgufWriter w;
    w.key("x", 13); // no such value type
    refuse(w.finish(32, 0), "key-value 'x' (type 13)");
  }
  {
    GgufWriter w;
    w.key("deep", 9); // arrays nested past any model's
    for (int i = 0; i < 9; ++i) {
      w.u32(9);
      w.u64(1);
    }
    w.u32(4);
    w.u64(0);
    refuse(w.finish(32, 0), "key-value 'deep'");
  }
  std::vector<uint8_t> notGguf = {'G', 'G', 'M', 'L', 0, 0, 0, 0};
  EXPECT_FALSE(looksLikeGguf(notGguf.data(), notGguf.size()));
  refuse(notGguf, "not a GGUF file");
}

} // namespace
