#include "embed.h"

#include "common/fragments.h"
#include "common/manifest_copy.h"
#include "common/run_command.h"
#include "rc/elf_sections.h"
#include "rc/fatbin.h"
#include "rc/fatbin_images.h"
#include "rc/kernel_names.h"
#include "rc/launch_abi.h"
#include "rc/manifest_file.h"

#include <cstdio>
#include <map>
#include <unistd.h>

namespace rc::link {
namespace {

int fail(const std::string &msg) {
  std::fprintf(stderr, "rc-link: error: %s\n", msg.c_str());
  return 1;
}

// The plugin lists an internal (static) __device__ variable when the AST
// uses it, e.g. from an inline device function of a header; the device
// compile emits it only if an emitted kernel reaches it (ggml-common.h's
// lookup tables in every ggml-cuda TU). The server cannot resolve one that
// is not in the cubin, so internal variables are kept only if some cubin
// has the symbol. `known` is false when a cubin cannot be read (compressed):
// then every variable is kept, as before.
bool emitted(const manifest::Variable &v, bool known,
             const std::map<std::string, uint64_t> &symbols) {
  return !known || !v.internal() ||
         (v.name() && symbols.count(v.name()->str()));
}

enum class CodeKind { Whole, Relocatable, DeviceLinked };

// Rebuilds the one-module fragment with the fatbin filled in. Relocatable
// device code keeps its fatbin in the object, for the device link (nvlink
// reads it there); the fragment only names it.
std::vector<uint8_t> fillFragment(const manifest::Manifest &frag,
                                  const uint8_t *fatbin, uint64_t size,
                                  CodeKind kind) {
  std::map<std::string, uint64_t> symbols;
  bool known = tools::readFatbinSymbols(fatbin, size, symbols);
  flatbuffers::FlatBufferBuilder b(size + 4096);
  bool relocatable = kind == CodeKind::Relocatable;
  auto module = tools::makeModule(
      b, *frag.modules()->Get(0), relocatable ? nullptr : fatbin,
      relocatable ? 0 : size, rc::fatbinHash(fatbin, size), relocatable,
      kind == CodeKind::DeviceLinked);
  std::vector<flatbuffers::Offset<manifest::Kernel>> kernels;
  std::string name;
  auto renamed = [&](bool internal, const flatbuffers::String *n) {
    return relocatable && internal && n &&
                   tools::externalizedName(n->str(), symbols, &name)
               ? &name
               : nullptr;
  };
  if (frag.kernels())
    for (const manifest::Kernel *k : *frag.kernels())
      kernels.push_back(
          tools::copyKernel(b, *k, 0, {}, renamed(k->internal(), k->name())));
  std::vector<flatbuffers::Offset<manifest::Variable>> vars;
  if (frag.variables())
    for (const manifest::Variable *v : *frag.variables())
      if (const std::string *n = renamed(v->internal(), v->name()))
        vars.push_back(tools::copyVariable(b, *v, 0, n));
      else if (emitted(*v, known, symbols))
        vars.push_back(tools::copyVariable(b, *v, 0));
  auto root = manifest::CreateManifest(
      b, frag.format_version(), b.CreateVector(&module, 1),
      b.CreateVectorOfSortedTables(&kernels), b.CreateVector(vars));
  manifest::FinishManifestBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// The fatbin of an object embedded before, from its .rc_manifest fragment;
// it must be the one the object's stub names.
bool earlierFatbin(const std::vector<uint8_t> &obj,
                   const std::vector<tools::ElfSection> &sections,
                   uint64_t stubHash, std::vector<uint8_t> &fatbin,
                   std::string *err) {
  const tools::ElfSection *sec =
      tools::findSection(sections, RC_FRAGMENT_SECTION);
  std::vector<std::vector<uint8_t>> frags;
  if (!sec ||
      !tools::splitFragments(obj.data() + sec->offset, sec->size, frags, err) ||
      frags.size() != 1) {
    *err = ".nv_fatbin is a remote stub but the object has no single earlier "
           "fragment holding its fatbin";
    return false;
  }
  const manifest::Manifest *m = manifest::GetManifest(frags[0].data());
  const manifest::Module *mod = m->modules() && m->modules()->size() == 1
                                    ? m->modules()->Get(0)
                                    : nullptr;
  if (!mod || !mod->fatbin() || mod->fatbin_hash() != stubHash) {
    *err = "the earlier fragment does not hold the fatbin the stub names";
    return false;
  }
  fatbin.assign(mod->fatbin()->begin(), mod->fatbin()->end());
  return true;
}

// Adds the framed fragment as the object's RC_FRAGMENT_SECTION, replacing
// one embedded before.
int addFragmentSection(const std::string &object,
                       const std::vector<tools::ElfSection> &sections,
                       const std::vector<uint8_t> &framed) {
  std::string err, tmp = object + ".rcfrag.tmp";
  if (!writeFile(tmp, framed.data(), framed.size(), &err))
    return fail(err);
  std::vector<std::string> cmd = {tools::objcopyPath()};
  if (tools::findSection(sections, RC_FRAGMENT_SECTION))
    cmd.push_back("--remove-section=" RC_FRAGMENT_SECTION);
  cmd.push_back("--add-section=" RC_FRAGMENT_SECTION "=" + tmp);
  cmd.push_back(object);
  int rc = tools::runCommand(cmd, &err);
  unlink(tmp.c_str());
  return rc == 0 ? 0 : fail(object + ": cannot add section: " + err);
}

// An object of relocatable device code: its fragment joins the object and
// the device code stays where the device link finds it.
int embedRelocatable(const std::string &object, const manifest::Manifest &m,
                     const std::vector<uint8_t> &obj,
                     const std::vector<tools::ElfSection> &sections,
                     const tools::ElfSection &rel) {
  const uint8_t *fatbin = obj.data() + rel.offset;
  uint64_t size = rc::fatbinSize(fatbin, rel.size);
  if (size == 0)
    return fail(object +
                ": __nv_relfatbin does not start with a fatbin header");
  return addFragmentSection(object, sections,
                            tools::frameFragment(fillFragment(
                                m, fatbin, size, CodeKind::Relocatable)));
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
  // -fgpu-rdc puts the device code in __nv_relfatbin instead.
  const tools::ElfSection *rel =
      fb ? nullptr : tools::findSection(sections, "__nv_relfatbin");
  if (rel)
    return embedRelocatable(object, m, obj, sections, *rel);
  if (!fb) {
    // No device code. The fragment may still list kernels and variables the
    // AST instantiated but no emitted code reaches (cub's EmptyKernel<void>
    // from an unused inline function; ggml-common.h's static tables): clang
    // emits every kernel whose host stub it emits, so an object without
    // stubs launches none of them and has nothing to remote. Stubs without
    // device code (a --cuda-host-only object) are an error.
    std::vector<tools::ElfSymbol> syms;
    if (!tools::readElfSymbols(obj.data(), obj.size(), sections, syms, &err))
      return fail(object + ": " + err);
    // Defined stubs only (size > 0): launching another TU's kernel leaves
    // an undefined reference to its stub, and that TU carries the kernel.
    for (const tools::ElfSymbol &s : syms)
      if (s.size > 0 && s.name.find("__device_stub__") != std::string::npos)
        return fail(object +
                    ": no .nv_fatbin section, but it defines kernel "
                    "stub " +
                    s.name + " (compiled host-only?)");
    return 0;
  }
  // The section is padded to its alignment; the hash covers the fatbin only.
  const uint8_t *fatbin = obj.data() + fb->offset;
  uint64_t size = rc::fatbinSize(fatbin, fb->size);
  if (size == 0)
    return fail(object + ": .nv_fatbin does not start with a fatbin header");
  uint64_t stubHash = 0;
  bool embedded = rc::readRemoteStub(fatbin, size, &stubHash);
  std::vector<uint8_t> earlier;
  if (embedded) {
    // Embedded before: the fatbin now lives in the earlier fragment.
    if (!earlierFatbin(obj, sections, stubHash, earlier, &err))
      return fail(object + ": " + err);
    fatbin = earlier.data();
    size = earlier.size();
  }
  // The device-link object (driver/link.stub) holds the linked image.
  std::vector<tools::ElfSymbol> syms;
  if (!tools::readElfSymbols(obj.data(), obj.size(), sections, syms, &err))
    return fail(object + ": " + err);
  CodeKind kind = CodeKind::Whole;
  for (const tools::ElfSymbol &s : syms)
    if (s.size > 0 && s.name.rfind("__cudaRegisterLinkedBinary", 0) == 0)
      kind = CodeKind::DeviceLinked;
  std::vector<uint8_t> filled = fillFragment(m, fatbin, size, kind);
  std::vector<uint8_t> framed = tools::frameFragment(filled);

  std::string stubTmp = object + ".rcstub.tmp";
  rc::RemoteFatbinStub stub = rc::makeRemoteStub(rc::fatbinHash(fatbin, size));
  if (!writeFile(stubTmp, &stub, sizeof stub, &err))
    return fail(err);
  // Re-embedding replaces an earlier fragment instead of adding a second.
  if (int rc = addFragmentSection(object, sections, framed)) {
    unlink(stubTmp.c_str());
    return rc;
  }
  // The client never loads device code: keep only the stub that names the
  // module (rc/fatbin.h), so the device code is stored once, in the .rcm.
  int stubRc = tools::runCommand({tools::gnuObjcopyPath(), "--update-section",
                                  ".nv_fatbin=" + stubTmp, object},
                                 &err);
  unlink(stubTmp.c_str());
  if (stubRc != 0)
    return fail(object + ": cannot replace .nv_fatbin by its stub: " + err);
  return 0;
}

} // namespace rc::link
