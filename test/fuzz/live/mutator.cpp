#include "mutator.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace rc::fuzz {

namespace {
constexpr uint32_t kWords[] = {0,          1,          4,          8,
                               0x7f,       0xff,       0x7fff,     0xffff,
                               0x7fffffff, 0x80000000, 0xfffffff8, 0xffffffff};

void step(std::vector<uint8_t> &m, const std::vector<uint8_t> &other,
          std::mt19937_64 &rng) {
  size_t n = m.size();
  auto at = [&](size_t limit) { return limit ? size_t(rng() % limit) : 0; };
  switch (rng() % 8) {
  case 0: // flip one bit
    if (n)
      m[at(n)] ^= uint8_t(1u << (rng() % 8));
    break;
  case 1: // overwrite a byte
    if (n)
      m[at(n)] = uint8_t(rng());
    break;
  case 2: // overwrite a 4-byte word (offsets, lengths, union types)
    if (n >= 4) {
      uint32_t w =
          rng() % 2 ? kWords[rng() % std::size(kWords)] : uint32_t(rng());
      std::memcpy(m.data() + at(n - 3) / 4 * 4, &w, 4);
    }
    break;
  case 3: // truncate
    m.resize(at(n + 1));
    break;
  case 4: { // insert random bytes
    std::vector<uint8_t> ins(1 + rng() % 16);
    for (uint8_t &b : ins)
      b = uint8_t(rng());
    m.insert(m.begin() + std::ptrdiff_t(at(n + 1)), ins.begin(), ins.end());
    break;
  }
  case 5: // delete a range
    if (n) {
      size_t from = at(n), len = 1 + at(std::min<size_t>(n - from, 64));
      m.erase(m.begin() + std::ptrdiff_t(from),
              m.begin() + std::ptrdiff_t(from + len));
    }
    break;
  case 6: // splice: a prefix of this, a suffix of the other
    if (!other.empty()) {
      size_t keep = at(n + 1), from = at(other.size());
      m.resize(keep);
      m.insert(m.end(), other.begin() + std::ptrdiff_t(from), other.end());
    }
    break;
  default: // duplicate a range in place
    if (n >= 2) {
      size_t from = at(n), len = 1 + at(std::min<size_t>(n - from, 32));
      std::vector<uint8_t> copy(m.begin() + std::ptrdiff_t(from),
                                m.begin() + std::ptrdiff_t(from + len));
      m.insert(m.begin() + std::ptrdiff_t(at(n + 1)), copy.begin(), copy.end());
    }
    break;
  }
}
} // namespace

void mutate(std::vector<uint8_t> &message, const std::vector<uint8_t> &other,
            std::mt19937_64 &rng, int maxSteps) {
  for (int i = 1 + int(rng() % uint64_t(maxSteps)); i > 0; --i)
    step(message, other, rng);
}

} // namespace rc::fuzz
