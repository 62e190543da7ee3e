#include "rc/elf_sections.h"
#include "unaligned_load.h"

#include <cstring>

namespace rc::tools {
namespace {

constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtNobits = 8;
constexpr size_t kSymSize = 24; // Elf64_Sym

} // namespace

bool isElf(const uint8_t *data, size_t size) {
  return size >= 4 && std::memcmp(data,
                                  "\x7f"
                                  "ELF",
                                  4) == 0;
}

bool readElfSections(const uint8_t *data, size_t size,
                     std::vector<ElfSection> &out, std::string *error) {
  auto fail = [&](const char *why) {
    if (error)
      *error = why;
    return false;
  };
  out.clear();
  if (!isElf(data, size))
    return fail("not an ELF file");
  if (size < 64 || data[4] != 2 || data[5] != 1)
    return fail("not a 64-bit little-endian ELF file");
  uint64_t shoff = loadUnaligned<uint64_t>(data + 0x28);
  uint16_t shentsize = loadUnaligned<uint16_t>(data + 0x3a);
  uint64_t shnum = loadUnaligned<uint16_t>(data + 0x3c);
  uint16_t shstrndx = loadUnaligned<uint16_t>(data + 0x3e);
  if (shoff == 0)
    return true; // no section headers at all
  // Section 0 must be there: it may hold the real count (read below).
  if (shentsize < 64 || shoff > size || size - shoff < shentsize)
    return fail("bad section header table");
  // ELF stores large counts in section 0 when e_shnum overflows.
  if (shnum == 0)
    shnum = loadUnaligned<uint64_t>(data + shoff + 0x20);
  if (shnum > (size - shoff) / shentsize)
    return fail("section header table runs past the end of the file");
  struct Raw {
    uint32_t name, type;
    uint64_t offset, size;
    uint32_t link;
    uint64_t entsize;
  };
  std::vector<Raw> raw(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t *h = data + shoff + i * shentsize;
    raw[i] = {
        loadUnaligned<uint32_t>(h),        loadUnaligned<uint32_t>(h + 4),
        loadUnaligned<uint64_t>(h + 0x18), loadUnaligned<uint64_t>(h + 0x20),
        loadUnaligned<uint32_t>(h + 0x28), loadUnaligned<uint64_t>(h + 0x38)};
    if (raw[i].type != kShtNobits &&
        (raw[i].offset > size || raw[i].size > size - raw[i].offset))
      return fail("a section runs past the end of the file");
  }
  if (shstrndx >= shnum)
    return fail("bad section name table index");
  const Raw &strtab = raw[shstrndx];
  // A SHT_NOBITS section has no bytes in the file, whatever its size says.
  uint64_t strtabSize = strtab.type == kShtNobits ? 0 : strtab.size;
  for (const Raw &r : raw) {
    ElfSection s;
    if (r.name < strtabSize) {
      const char *p =
          reinterpret_cast<const char *>(data + strtab.offset + r.name);
      s.name.assign(p, strnlen(p, strtabSize - r.name));
    }
    s.type = r.type;
    // SHT_NOBITS has no bytes in the file, wherever its offset points: a
    // pointer made from that offset would lie outside the file.
    s.offset = r.type == kShtNobits ? 0 : r.offset;
    s.size = r.type == kShtNobits ? 0 : r.size;
    s.link = r.link;
    s.entsize = r.entsize;
    out.push_back(std::move(s));
  }
  return true;
}

bool readElfSymbols(const uint8_t *data, size_t size,
                    const std::vector<ElfSection> &sections,
                    std::vector<ElfSymbol> &out, std::string *error) {
  (void)size; // readElfSections checked every section against it
  out.clear();
  for (const ElfSection &s : sections) {
    if (s.type != kShtSymtab)
      continue;
    if (s.link >= sections.size() || (s.entsize && s.entsize < kSymSize)) {
      if (error)
        *error = "bad symbol table " + s.name;
      return false;
    }
    const ElfSection &strtab = sections[s.link];
    uint64_t step = s.entsize ? s.entsize : kSymSize;
    // Counted, not stepped to the end: a huge sh_entsize would wrap the
    // offset around to before the table (found by the fatbin fuzzer).
    for (uint64_t i = 0, n = s.size / step; i < n; ++i) {
      const uint8_t *sym = data + s.offset + i * step;
      uint32_t nameOff = loadUnaligned<uint32_t>(sym);
      if (nameOff == 0 || nameOff >= strtab.size)
        continue;
      const char *p =
          reinterpret_cast<const char *>(data + strtab.offset + nameOff);
      out.push_back({std::string(p, strnlen(p, strtab.size - nameOff)),
                     loadUnaligned<uint64_t>(sym + 16)});
    }
  }
  return true;
}

const ElfSection *findSection(const std::vector<ElfSection> &sections,
                              const std::string &name) {
  for (const ElfSection &s : sections)
    if (s.name == name)
      return &s;
  return nullptr;
}

} // namespace rc::tools
