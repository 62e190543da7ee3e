// libFuzzer harness: the binary readers of manifest/ (rc_manifest_check), as
// `rc-manifest verify` and rc-link use them on objects, binaries and the
// fatbins in manifests: the fatbin container and its images, each cubin's
// kernel parameter records (.nv.info.<kernel>) and symbols, and ELF sections
// and symbol tables. The input is tried as a fatbin and as an ELF file.
#include "rc/elf_sections.h"
#include "rc/fatbin_images.h"

#include <map>
#include <string>
#include <vector>

using namespace rc::tools;

namespace {

void readCubin(const uint8_t *data, size_t size) {
  std::map<std::string, CubinKernel> kernels;
  std::map<std::string, uint64_t> symbols;
  std::string error;
  readCubinKernels(data, size, kernels, &error);
  readCubinSymbols(data, size, symbols, &error);
}

void readElf(const uint8_t *data, size_t size) {
  std::vector<ElfSection> sections;
  std::vector<ElfSymbol> symbols;
  std::string error;
  if (!isElf(data, size) || !readElfSections(data, size, sections, &error))
    return;
  readElfSymbols(data, size, sections, symbols, &error);
  findSection(sections, ".nv_fatbin");
  readCubin(data, size);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> aligned(data, data + size);
  std::vector<FatbinImage> images;
  std::string error;
  if (parseFatbin(aligned.data(), aligned.size(), images, &error))
    for (const FatbinImage &img : images)
      if (img.kind == 2 && !img.compressed)
        readCubin(img.data, img.size);
  readElf(aligned.data(), aligned.size());
  return 0;
}
