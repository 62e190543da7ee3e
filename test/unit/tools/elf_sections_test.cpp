// The ELF readers on hostile headers (all found by the fatbin fuzzer): a
// section header table too short to hold section 0, whose size field may
// carry the section count; a name table of type SHT_NOBITS whose offset
// points nowhere; a symbol table whose entry size wraps the offset around.
// Each input ends at an unreadable page.
#include "guarded_bytes.h"
#include "rc/elf_sections.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

template <typename T> void put(std::vector<uint8_t> &v, size_t at, T x) {
  if (v.size() < at + sizeof x)
    v.resize(at + sizeof x);
  std::memcpy(v.data() + at, &x, sizeof x);
}

// A 64-bit little-endian ELF header with the given section table fields.
std::vector<uint8_t> elfHeader(uint64_t shoff, uint16_t shnum,
                               uint16_t shstrndx) {
  std::vector<uint8_t> v(64, 0);
  std::memcpy(v.data(),
              "\x7f"
              "ELF",
              4);
  v[4] = 2; // 64-bit
  v[5] = 1; // little-endian
  put<uint64_t>(v, 0x28, shoff);
  put<uint16_t>(v, 0x3a, 64);
  put<uint16_t>(v, 0x3c, shnum);
  put<uint16_t>(v, 0x3e, shstrndx);
  return v;
}

std::string refusal(const std::vector<uint8_t> &bytes) {
  rc::test::GuardedBytes in(bytes);
  std::vector<rc::tools::ElfSection> sections;
  std::string error;
  EXPECT_FALSE(
      rc::tools::readElfSections(in.data(), in.size(), sections, &error));
  return error;
}

TEST(ElfSections, SectionTableTooShortForSectionZeroIsRefused) {
  // e_shnum 0 sends the reader to section 0's size field, 0x20 bytes into
  // a table that here has only 16 bytes before the end of the file.
  std::vector<uint8_t> elf = elfHeader(64, 0, 0);
  elf.resize(64 + 16, 0);
  EXPECT_EQ(refusal(elf), "bad section header table");
}

TEST(ElfSections, NobitsNameTableIsNotRead) {
  // Two sections: 0 (null) and 1, the name table, SHT_NOBITS at a far
  // offset with a large size; names must come out empty, not read there.
  std::vector<uint8_t> elf = elfHeader(64, 2, 1);
  elf.resize(64 + 2 * 64, 0);
  size_t sh1 = 64 + 64;
  put<uint32_t>(elf, sh1 + 0, 0);             // sh_name
  put<uint32_t>(elf, sh1 + 4, 8);             // SHT_NOBITS
  put<uint64_t>(elf, sh1 + 0x18, 1ull << 40); // sh_offset
  put<uint64_t>(elf, sh1 + 0x20, 1ull << 20); // sh_size
  put<uint32_t>(elf, 64 + 0, 0);              // section 0's name offset
  rc::test::GuardedBytes in(elf);
  std::vector<rc::tools::ElfSection> sections;
  std::string error;
  ASSERT_TRUE(
      rc::tools::readElfSections(in.data(), in.size(), sections, &error))
      << error;
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].name, "");
  EXPECT_EQ(sections[1].name, "");
  EXPECT_EQ(sections[1].size, 0u) << "SHT_NOBITS has no bytes in the file";
  // Nor an offset in it: readCubinKernels made a pointer from it (UBSan,
  // the fatbin fuzzer, a .nv.info section of that type).
  EXPECT_EQ(sections[1].offset, 0u);
}

TEST(ElfSections, SymbolTableWithAHugeEntrySizeHoldsNoSymbol) {
  // Sections: 0 null, 1 .symtab of 24 bytes whose entries claim 2^64 - 24
  // bytes each (so it holds none), 2 the string table, 3 the section
  // names. The 24 bytes before the table look like a symbol too: stepping
  // by entsize wrapped around onto them.
  std::vector<uint8_t> elf = elfHeader(64, 4, 3);
  size_t headers = 64, data = headers + 4 * 64;
  elf.resize(data, 0);
  const char strtab[] = "\0real\0ghost\0";
  const char shstr[] = "\0.symtab\0.strtab\0.shstrtab\0";
  size_t ghost = data, symtab = data + 24, strOff = symtab + 24,
         shstrOff = strOff + sizeof strtab;
  elf.resize(shstrOff + sizeof shstr, 0);
  put<uint32_t>(elf, ghost, 6);        // st_name "ghost"
  put<uint32_t>(elf, symtab, 1);       // st_name "real"
  put<uint64_t>(elf, symtab + 16, 42); // st_size
  std::memcpy(elf.data() + strOff, strtab, sizeof strtab);
  std::memcpy(elf.data() + shstrOff, shstr, sizeof shstr);
  auto section = [&](int i, uint32_t name, uint32_t type, uint64_t off,
                     uint64_t size, uint32_t link, uint64_t entsize) {
    size_t h = headers + size_t(i) * 64;
    put<uint32_t>(elf, h, name);
    put<uint32_t>(elf, h + 4, type);
    put<uint64_t>(elf, h + 0x18, off);
    put<uint64_t>(elf, h + 0x20, size);
    put<uint32_t>(elf, h + 0x28, link);
    put<uint64_t>(elf, h + 0x38, entsize);
  };
  section(1, 1, 2 /*SHT_SYMTAB*/, symtab, 24, 2, ~uint64_t(0) - 23);
  section(2, 9, 3 /*SHT_STRTAB*/, strOff, sizeof strtab, 0, 0);
  section(3, 17, 3, shstrOff, sizeof shstr, 0, 0);
  rc::test::GuardedBytes in(elf);
  std::vector<rc::tools::ElfSection> sections;
  std::vector<rc::tools::ElfSymbol> symbols;
  std::string error;
  ASSERT_TRUE(
      rc::tools::readElfSections(in.data(), in.size(), sections, &error))
      << error;
  ASSERT_TRUE(rc::tools::readElfSymbols(in.data(), in.size(), sections, symbols,
                                        &error))
      << error;
  std::string names;
  for (const rc::tools::ElfSymbol &sym : symbols)
    names += " " + sym.name;
  EXPECT_TRUE(symbols.empty()) << "read" << names;
}

} // namespace
