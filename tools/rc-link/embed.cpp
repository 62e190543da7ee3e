#include "embed.h"

#include "common/elf_sections.h"
#include "common/fragments.h"
#include "common/manifest_copy.h"
#include "common/run_command.h"
#include "rc/fatbin.h"
#include "rc/launch_abi.h"
#include "rc/manifest_file.h"

#include <cstdio>
#include <unistd.h>

namespace rc::link {
namespace {

int fail(const std::string &msg) {
  std::fprintf(stderr, "rc-link: error: %s\n", msg.c_str());
  return 1;
}

// Rebuilds the one-module fragment with the fatbin filled in.
std::vector<uint8_t> fillFragment(const manifest::Manifest &frag,
                                  const uint8_t *fatbin, uint64_t size) {
  flatbuffers::FlatBufferBuilder b(size + 4096);
  auto module = tools::makeModule(b, *frag.modules()->Get(0), fatbin, size,
                                  rc::fatbinHash(fatbin, size));
  std::vector<flatbuffers::Offset<manifest::Kernel>> kernels;
  if (frag.kernels())
    for (const manifest::Kernel *k : *frag.kernels())
      kernels.push_back(tools::copyKernel(b, *k, 0));
  std::vector<flatbuffers::Offset<manifest::Variable>> vars;
  if (frag.variables())
    for (const manifest::Variable *v : *frag.variables())
      vars.push_back(tools::copyVariable(b, *v, 0));
  auto root = manifest::CreateManifest(
      b, frag.format_version(), b.CreateVector(&module, 1),
      b.CreateVectorOfSortedTables(&kernels), b.CreateVector(vars));
  manifest::FinishManifestBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

} // namespace

int embedFragment(const std::string &object, const std::string &fragment) {
  std::string err;
  LoadedManifest frag;
  if (!loadManifest(fragment, frag, &err))
    return fail(err);
  const manifest::Manifest &m = *frag.root;
  if (!m.modules() || m.modules()->size() != 1)
    return fail(fragment +
                ": a fragment must hold exactly one module, it has " +
                std::to_string(m.modules() ? m.modules()->size() : 0));

  std::vector<uint8_t> obj;
  std::vector<tools::ElfSection> sections;
  if (!readFile(object, obj, &err))
    return fail(err);
  if (!tools::readElfSections(obj.data(), obj.size(), sections, &err))
    return fail(object + ": " + err);
  const tools::ElfSection *fb = tools::findSection(sections, ".nv_fatbin");
  bool hasSymbols = (m.kernels() && m.kernels()->size()) ||
                    (m.variables() && m.variables()->size());
  if (!fb) {
    // A CUDA TU without device code: nothing to remote, nothing to embed.
    if (!hasSymbols)
      return 0;
    return fail(object + ": no .nv_fatbin section, but " + fragment +
                " lists kernels or variables");
  }
  // The section is padded to its alignment; the hash covers the fatbin only.
  uint64_t size = rc::fatbinSize(obj.data() + fb->offset, fb->size);
  if (size == 0)
    return fail(object + ": .nv_fatbin does not start with a fatbin header");
  std::vector<uint8_t> filled = fillFragment(m, obj.data() + fb->offset, size);
  std::vector<uint8_t> framed = tools::frameFragment(filled);

  std::string tmp = object + ".rcfrag.tmp";
  if (!writeFile(tmp, framed.data(), framed.size(), &err))
    return fail(err);
  // Re-embedding replaces an earlier fragment instead of adding a second.
  std::vector<std::string> cmd = {tools::objcopyPath()};
  if (tools::findSection(sections, RC_FRAGMENT_SECTION))
    cmd.push_back("--remove-section=" RC_FRAGMENT_SECTION);
  cmd.push_back("--add-section=" RC_FRAGMENT_SECTION "=" + tmp);
  cmd.push_back(object);
  int rc = tools::runCommand(cmd, &err);
  unlink(tmp.c_str());
  if (rc != 0)
    return fail(object + ": cannot add section: " + err);
  return 0;
}

} // namespace rc::link
