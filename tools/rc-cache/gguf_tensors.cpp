#include "gguf_tensors.h"

#include <cstring>
#include <limits>

namespace rc::tools {

namespace {

constexpr uint32_t kMagic = 0x46554747; // "GGUF" read little-endian
constexpr uint64_t kDefaultAlignment = 32;
// Arrays nest (an array of arrays); deeper than this is not a model file.
constexpr int kMaxNesting = 8;

// GGUF's value types.
enum ValueType : uint32_t {
  kUint8 = 0,
  kInt8,
  kUint16,
  kInt16,
  kUint32,
  kInt32,
  kFloat32,
  kBool,
  kString,
  kArray,
  kUint64,
  kInt64,
  kFloat64,
};

// Bytes of a scalar value type; 0 for strings, arrays and unknown types.
uint64_t scalarBytes(uint32_t type) {
  switch (type) {
  case kUint8:
  case kInt8:
  case kBool:
    return 1;
  case kUint16:
  case kInt16:
    return 2;
  case kUint32:
  case kInt32:
  case kFloat32:
    return 4;
  case kUint64:
  case kInt64:
  case kFloat64:
    return 8;
  default:
    return 0;
  }
}

// A ggml type's block: this many elements take this many bytes.
struct Block {
  uint32_t elements, bytes;
};

// ggml's tensor types by id (ggml.h, enum ggml_type); ids llama.cpp has
// retired are absent.
bool blockOf(uint32_t type, Block *out) {
  static const struct {
    uint32_t id;
    Block block;
  } kTypes[] = {
      {0, {1, 4}},      // F32
      {1, {1, 2}},      // F16
      {2, {32, 18}},    // Q4_0
      {3, {32, 20}},    // Q4_1
      {6, {32, 22}},    // Q5_0
      {7, {32, 24}},    // Q5_1
      {8, {32, 34}},    // Q8_0
      {9, {32, 36}},    // Q8_1
      {10, {256, 84}},  // Q2_K
      {11, {256, 110}}, // Q3_K
      {12, {256, 144}}, // Q4_K
      {13, {256, 176}}, // Q5_K
      {14, {256, 210}}, // Q6_K
      {15, {256, 292}}, // Q8_K
      {16, {256, 66}},  // IQ2_XXS
      {17, {256, 74}},  // IQ2_XS
      {18, {256, 98}},  // IQ3_XXS
      {19, {256, 50}},  // IQ1_S
      {20, {32, 18}},   // IQ4_NL
      {21, {256, 110}}, // IQ3_S
      {22, {256, 82}},  // IQ2_S
      {23, {256, 136}}, // IQ4_XS
      {24, {1, 1}},     // I8
      {25, {1, 2}},     // I16
      {26, {1, 4}},     // I32
      {27, {1, 8}},     // I64
      {28, {1, 8}},     // F64
      {29, {256, 56}},  // IQ1_M
      {30, {1, 2}},     // BF16
      {34, {256, 54}},  // TQ1_0
      {35, {256, 66}},  // TQ2_0
      {39, {32, 17}},   // MXFP4
  };
  for (const auto &t : kTypes)
    if (t.id == type) {
      *out = t.block;
      return true;
    }
  return false;
}

// A cursor over the file that refuses to read past its end.
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  uint64_t position() const { return at_; }
  bool u32(uint32_t *v) { return read(v, 4); }
  bool u64(uint64_t *v) { return read(v, 8); }
  bool skip(uint64_t n) {
    if (n > size_ - at_)
      return false;
    at_ += n;
    return true;
  }
  bool string(std::string *s) {
    uint64_t n = 0;
    if (!u64(&n) || n > size_ - at_)
      return false;
    s->assign(reinterpret_cast<const char *>(data_ + at_), size_t(n));
    at_ += n;
    return true;
  }
  bool skipString() {
    uint64_t n = 0;
    return u64(&n) && skip(n);
  }

private:
  // GGUF is little-endian, as are the machines remote-clang runs on.
  template <typename T> bool read(T *v, size_t n) {
    if (n > size_ - at_)
      return false;
    std::memcpy(v, data_ + at_, n);
    at_ += n;
    return true;
  }
  const uint8_t *data_;
  size_t size_;
  uint64_t at_ = 0;
};

bool fail(std::string *error, const std::string &why) {
  *error = why;
  return false;
}

// Steps over one value of `type`; false if it runs past the end, or the
// type is unknown or nested too deep.
bool skipValue(Reader &r, uint32_t type, int depth) {
  if (uint64_t n = scalarBytes(type))
    return r.skip(n);
  if (type == kString)
    return r.skipString();
  if (type != kArray || depth >= kMaxNesting)
    return false;
  uint32_t elementType = 0;
  uint64_t count = 0;
  if (!r.u32(&elementType) || !r.u64(&count))
    return false;
  if (uint64_t n = scalarBytes(elementType)) // a run of scalars at once
    return count <= std::numeric_limits<uint64_t>::max() / n &&
           r.skip(count * n);
  for (uint64_t i = 0; i < count; ++i)
    if (!skipValue(r, elementType, depth + 1))
      return false;
  return true;
}

// The key-values, of which only the alignment matters here.
bool readKeyValues(Reader &r, uint64_t count, uint64_t *alignment,
                   std::string *error) {
  for (uint64_t i = 0; i < count; ++i) {
    std::string key;
    uint32_t type = 0;
    if (!r.string(&key) || !r.u32(&type))
      return fail(error, "the file ends inside key-value " + std::to_string(i));
    if (key == "general.alignment" && type == kUint32) {
      uint32_t a = 0;
      if (!r.u32(&a))
        return fail(error, "the file ends inside general.alignment");
      if (a == 0 || (a & (a - 1)) != 0)
        return fail(error, "general.alignment " + std::to_string(a) +
                               " is not a power of two");
      *alignment = a;
    } else if (!skipValue(r, type, 0)) {
      return fail(error, "key-value '" + key + "' (type " +
                             std::to_string(type) +
                             ") is malformed or runs past the end");
    }
  }
  return true;
}

// One tensor's entry: its name, shape and type give its size; its offset
// is relative to the data section.
bool readTensorInfo(Reader &r, GgufTensor *t, std::string *error) {
  uint32_t dims = 0, type = 0;
  if (!r.string(&t->name) || !r.u32(&dims))
    return fail(error, "the file ends inside a tensor's entry");
  if (dims == 0 || dims > 8)
    return fail(error, "tensor '" + t->name + "' has " + std::to_string(dims) +
                           " dimensions");
  uint64_t elements = 1, first = 0;
  for (uint32_t d = 0; d < dims; ++d) {
    uint64_t n = 0;
    if (!r.u64(&n))
      return fail(error, "the file ends inside tensor '" + t->name + "'");
    if (d == 0)
      first = n;
    if (n != 0 && elements > std::numeric_limits<uint64_t>::max() / n)
      return fail(error, "tensor '" + t->name + "' has too many elements");
    elements *= n;
  }
  if (!r.u32(&type) || !r.u64(&t->offset))
    return fail(error, "the file ends inside tensor '" + t->name + "'");
  Block block{};
  if (!blockOf(type, &block))
    return fail(error, "tensor '" + t->name + "' has ggml type " +
                           std::to_string(type) +
                           ", which rc-cache does not know (rc-cache "
                           "preload --whole uploads the file as one)");
  if (first % block.elements != 0)
    return fail(error, "tensor '" + t->name + "' has rows of " +
                           std::to_string(first) + " elements, not whole " +
                           std::to_string(block.elements) + "-element blocks");
  uint64_t blocks = elements / block.elements;
  if (blocks > std::numeric_limits<uint64_t>::max() / block.bytes)
    return fail(error, "tensor '" + t->name + "' has too many elements");
  t->size = blocks * block.bytes;
  return true;
}

} // namespace

bool looksLikeGguf(const uint8_t *file, size_t size) {
  uint32_t magic = 0;
  return Reader(file, size).u32(&magic) && magic == kMagic;
}

bool readGgufTensors(const uint8_t *file, size_t size,
                     std::vector<GgufTensor> *tensors, std::string *error) {
  Reader r(file, size);
  uint32_t magic = 0, version = 0;
  uint64_t tensorCount = 0, kvCount = 0;
  if (!r.u32(&magic) || magic != kMagic)
    return fail(error, "not a GGUF file");
  if (!r.u32(&version) || !r.u64(&tensorCount) || !r.u64(&kvCount))
    return fail(error, "the file ends inside the GGUF header");
  if (version != 2 && version != 3)
    return fail(error, "GGUF version " + std::to_string(version) +
                           " (this reader knows 2 and 3)");
  uint64_t alignment = kDefaultAlignment;
  if (!readKeyValues(r, kvCount, &alignment, error))
    return false;
  // Entries are read one by one: a count the file cannot hold ends at its
  // end, with nothing reserved for the count.
  std::vector<GgufTensor> found;
  for (uint64_t i = 0; i < tensorCount; ++i) {
    GgufTensor t;
    if (!readTensorInfo(r, &t, error))
      return false;
    found.push_back(std::move(t));
  }
  uint64_t dataStart = (r.position() + alignment - 1) / alignment * alignment;
  for (GgufTensor &t : found) {
    if (t.offset > size || dataStart > size - t.offset ||
        t.size > size - dataStart - t.offset)
      return fail(error, "tensor '" + t.name + "' lies outside the file");
    t.offset += dataStart;
  }
  *tensors = std::move(found);
  return true;
}

} // namespace rc::tools
