// Reading named sections of 64-bit little-endian ELF files: host objects and
// binaries (.nv_fatbin, .rc_manifest) and the cubins inside fatbins
// (.nv.info.<kernel>). Reading only; rewriting objects is left to
// llvm-objcopy, which knows every relocation and symbol-table corner case.
#ifndef RC_ELF_SECTIONS_H
#define RC_ELF_SECTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace rc::tools {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0; // in the file (0 for SHT_NOBITS)
  uint64_t size = 0;   // bytes present in the file (0 for SHT_NOBITS)
  uint32_t link = 0;   // sh_link: e.g. a symbol table's string table
  uint64_t entsize = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t size = 0;
};

// All named symbols of the file's SHT_SYMTAB sections.
bool readElfSymbols(const uint8_t *data, size_t size,
                    const std::vector<ElfSection> &sections,
                    std::vector<ElfSymbol> &out, std::string *error);

bool isElf(const uint8_t *data, size_t size);

// Parses the section headers; on failure sets *error (no file name: the
// caller knows which file it read).
bool readElfSections(const uint8_t *data, size_t size,
                     std::vector<ElfSection> &out, std::string *error);

const ElfSection *findSection(const std::vector<ElfSection> &sections,
                              const std::string &name);

} // namespace rc::tools

#endif
