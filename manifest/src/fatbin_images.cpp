#include "rc/fatbin_images.h"

#include "rc/elf_sections.h"
#include "rc/fatbin.h"
#include "unaligned_load.h"

#include <algorithm>
#include <cstring>

namespace rc::tools {
namespace {

// Compressed payloads: LZ4 (CUDA 11.x-12.x's fatbinary) and zstd (CUDA 13's,
// which compresses PTX always and debug cubins, -G, by default).
constexpr uint64_t kFlagCompressedLz4 = 0x2000, kFlagCompressedZstd = 0x8000;
constexpr uint8_t kFmtNval = 1, kFmtSval = 4;
constexpr uint8_t kAttrKparamInfo = 0x17, kAttrCbankParamSize = 0x19,
                  kAttrKparamInfoV2 = 0x45;

bool parseInfo(const uint8_t *p, size_t size, CubinKernel &k,
               std::string *error) {
  size_t pos = 0;
  while (pos + 2 <= size) {
    uint8_t fmt = p[pos], attr = p[pos + 1];
    if (pos + 4 > size)
      break;
    // Every record is at least 4 bytes: a value-less one (EIFMT_NVAL, e.g.
    // 0x35 in sm_80 cubins) is padded to 4 like the u8/u16 ones.
    if (fmt == kFmtNval) {
      pos += 4;
      continue;
    }
    uint16_t v = loadUnaligned<uint16_t>(p + pos + 2);
    if (fmt != kFmtSval) { // u8/u16 value inline
      if (attr == kAttrCbankParamSize)
        k.paramBytes = v;
      pos += 4;
      continue;
    }
    if (pos + 4 + v > size) {
      if (error)
        *error = "truncated .nv.info attribute";
      return false;
    }
    if ((attr == kAttrKparamInfo || attr == kAttrKparamInfoV2) && v >= 12) {
      const uint8_t *r = p + pos + 4;
      CubinParam cp;
      cp.ordinal = loadUnaligned<uint16_t>(r + 4);
      cp.offset = loadUnaligned<uint16_t>(r + 6);
      uint32_t info = loadUnaligned<uint32_t>(r + 8);
      cp.size = attr == kAttrKparamInfo ? (info >> 18) & 0x3fff : info;
      k.params.push_back(cp);
    }
    pos += 4 + v;
  }
  std::sort(k.params.begin(), k.params.end(),
            [](const CubinParam &a, const CubinParam &b) {
              return a.ordinal < b.ordinal;
            });
  return true;
}

} // namespace

bool parseFatbin(const uint8_t *data, size_t size,
                 std::vector<FatbinImage> &out, std::string *error) {
  out.clear();
  uint64_t total = rc::fatbinSize(data, size);
  if (total == 0) {
    if (error)
      *error = "not a fatbin (bad magic or size)";
    return false;
  }
  uint64_t pos = loadUnaligned<uint16_t>(data + 6);
  while (pos < total) {
    if (total - pos < 0x30) {
      if (error)
        *error =
            "truncated fatbin entry header at offset " + std::to_string(pos);
      return false;
    }
    const uint8_t *h = data + pos;
    FatbinImage img;
    img.kind = loadUnaligned<uint16_t>(h);
    uint32_t headerSize = loadUnaligned<uint32_t>(h + 4);
    img.size = loadUnaligned<uint64_t>(h + 8);
    img.arch = loadUnaligned<uint32_t>(h + 0x1c);
    img.compressed = loadUnaligned<uint64_t>(h + 0x28) &
                     (kFlagCompressedLz4 | kFlagCompressedZstd);
    if (headerSize < 0x30 || headerSize > total - pos ||
        img.size > total - pos - headerSize) {
      if (error)
        *error = "fatbin entry at offset " + std::to_string(pos) +
                 " runs past the end of the fatbin";
      return false;
    }
    img.data = h + headerSize;
    out.push_back(img);
    pos += headerSize + img.size;
  }
  return true;
}

bool readCubinKernels(const uint8_t *data, size_t size,
                      std::map<std::string, CubinKernel> &out,
                      std::string *error) {
  std::vector<ElfSection> sections;
  if (!readElfSections(data, size, sections, error))
    return false;
  const std::string prefix = ".nv.info.";
  for (const ElfSection &s : sections) {
    if (s.name.compare(0, prefix.size(), prefix) != 0)
      continue;
    CubinKernel k;
    if (!parseInfo(data + s.offset, s.size, k, error))
      return false;
    out[s.name.substr(prefix.size())] = std::move(k);
  }
  return true;
}

bool readCubinSymbols(const uint8_t *data, size_t size,
                      std::map<std::string, uint64_t> &out,
                      std::string *error) {
  std::vector<ElfSection> sections;
  std::vector<ElfSymbol> symbols;
  if (!readElfSections(data, size, sections, error) ||
      !readElfSymbols(data, size, sections, symbols, error))
    return false;
  for (const ElfSymbol &sym : symbols)
    out[sym.name] = sym.size;
  return true;
}

bool readFatbinSymbols(const uint8_t *fatbin, size_t size,
                       std::map<std::string, uint64_t> &out) {
  std::vector<FatbinImage> images;
  std::string err;
  if (!parseFatbin(fatbin, size, images, &err))
    return false;
  bool any = false, all = true;
  for (const FatbinImage &img : images) {
    if (img.kind != 2)
      continue;
    any = true;
    all = !img.compressed && readCubinSymbols(img.data, img.size, out, &err) &&
          all;
  }
  return any && all;
}

} // namespace rc::tools
