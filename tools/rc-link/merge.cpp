#include "merge.h"

#include "common/fragments.h"
#include "common/manifest_copy.h"
#include "common/run_command.h"
#include "rc/build_id.h"
#include "rc/elf_sections.h"
#include "rc/fatbin_images.h"
#include "rc/kernel_names.h"
#include "rc/launch_abi.h"
#include "rc/manifest_file.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <unistd.h>

namespace rc::link {
namespace {

namespace fbm = rc::manifest;
using tools::hexId;

int fail(const std::string &msg) {
  std::fprintf(stderr, "rc-link: error: %s\n", msg.c_str());
  return 1;
}

std::string sourceOf(const fbm::Manifest &m, uint32_t module) {
  const fbm::Module *mod = m.modules()->Get(module);
  return mod->source() ? mod->source()->str() : "<unknown source>";
}

std::string nameOf(const flatbuffers::String *demangled,
                   const flatbuffers::String *name) {
  std::string n = name ? name->str() : "";
  if (demangled && demangled->size() && demangled->str() != n)
    return "'" + demangled->str() + "' (" + n + ")";
  return "'" + n + "'";
}

// Sort key of a fragment: its first module's source and fatbin hash.
std::pair<std::string, uint64_t>
fragmentKey(const std::vector<uint8_t> &bytes) {
  const fbm::Manifest *m = fbm::GetManifest(bytes.data());
  if (!m->modules() || m->modules()->size() == 0)
    return {"", 0};
  const fbm::Module *mod = m->modules()->Get(0);
  return {mod->source() ? mod->source()->str() : "", mod->fatbin_hash()};
}

struct KernelRef {
  const fbm::Manifest *frag;
  const fbm::Kernel *kernel;
  uint32_t module; // merged index
  std::vector<const fbm::LaunchSite *> extraSites;
  std::string placedName = {}; // the device-linked name, where it differs
};

struct VarRef {
  const fbm::Manifest *frag;
  const fbm::Variable *var;
  uint32_t module;
  std::string placedName = {};
};

constexpr uint32_t kRelocated = UINT32_MAX;

using ModuleList =
    std::vector<std::pair<const fbm::Manifest *, const fbm::Module *>>;

// Names the cubins of a fatbin define (kernels, variables).
std::map<std::string, uint64_t> cubinNames(const fbm::Module &mod) {
  std::map<std::string, uint64_t> names;
  if (mod.fatbin())
    tools::readFatbinSymbols(mod.fatbin()->data(), mod.fatbin()->size(), names);
  return names;
}

// Relocatable device code runs from the binary's device-linked module: each
// kernel and variable of an -rdc fragment moves to the device-linked module
// that defines its name (nvlink kept it under that name).
bool placeRelocated(const ModuleList &modules,
                    std::map<uint64_t, KernelRef> &kernels,
                    std::map<uint64_t, VarRef> &vars, std::string *error) {
  std::vector<std::pair<uint32_t, std::map<std::string, uint64_t>>> linked;
  // An internal name may be clang's <name>__static__<hash> there (embed
  // renames it when it can read the object's cubin; a compressed one hides
  // it).
  auto where = [&](const std::string &name, bool internal, uint32_t *out,
                   std::string *placed) {
    if (linked.empty())
      for (uint32_t i = 0; i < modules.size(); ++i)
        if (modules[i].second->device_linked())
          linked.push_back({i, cubinNames(*modules[i].second)});
    for (const auto &[i, names] : linked)
      if (names.count(name) ||
          (internal && tools::externalizedName(name, names, placed))) {
        *out = i;
        return true;
      }
    return false;
  };
  auto unplaced = [&](const char *what, const std::string &name,
                      const fbm::Manifest &frag) {
    if (error)
      *error = std::string(what) + " '" + name + "' of " + sourceOf(frag, 0) +
               " is relocatable device code (-rdc), but no device-linked "
               "module of this binary defines it: device-link its objects "
               "(CMake's CUDA_SEPARABLE_COMPILATION, or nvcc -dlink)";
    return false;
  };
  for (auto &[id, ref] : kernels)
    if (ref.module == kRelocated &&
        !where(ref.kernel->name()->str(), ref.kernel->internal(), &ref.module,
               &ref.placedName))
      return unplaced("kernel", ref.kernel->name()->str(), *ref.frag);
  for (auto &[id, ref] : vars)
    if (ref.module == kRelocated &&
        !where(ref.var->name()->str(), ref.var->internal(), &ref.module,
               &ref.placedName))
      return unplaced("variable", ref.var->name()->str(), *ref.frag);
  return true;
}

} // namespace

bool mergeFragments(const std::vector<std::vector<uint8_t>> &fragments,
                    std::vector<uint8_t> &out, std::string *error) {
  ModuleList modules;
  std::map<uint64_t, KernelRef> kernels; // ordered: the merged order is by ID
  std::map<uint64_t, VarRef> vars;
  // Modules are numbered by (source, fatbin hash), not by link order, so the
  // same sources give byte-identical manifests (and manifest hashes)
  // whatever order objects are linked in.
  std::vector<const std::vector<uint8_t> *> ordered;
  for (const std::vector<uint8_t> &bytes : fragments)
    ordered.push_back(&bytes);
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const std::vector<uint8_t> *a, const std::vector<uint8_t> *b) {
        return fragmentKey(*a) < fragmentKey(*b);
      });
  for (const std::vector<uint8_t> *frag : ordered) {
    const std::vector<uint8_t> &bytes = *frag;
    const fbm::Manifest *m = fbm::GetManifest(bytes.data());
    // Merged index of each of the fragment's modules; relocatable ones are
    // left out (kRelocated) until the device-linked module is known.
    std::vector<uint32_t> index;
    if (m->modules())
      for (const fbm::Module *mod : *m->modules()) {
        index.push_back(mod->relocatable() ? kRelocated : modules.size());
        if (!mod->relocatable())
          modules.push_back({m, mod});
      }
    auto merged = [&](uint32_t i) {
      return i < index.size() ? index[i] : kRelocated;
    };
    if (m->kernels())
      for (const fbm::Kernel *k : *m->kernels()) {
        auto [it, fresh] = kernels.try_emplace(
            k->id(), KernelRef{m, k, merged(k->module_index()), {}});
        if (fresh)
          continue;
        const fbm::Kernel *old = it->second.kernel;
        if (std::strcmp(old->name()->c_str(), k->name()->c_str()) != 0) {
          if (error)
            *error = "kernel ID collision: " + hexId(k->id()) + " is " +
                     nameOf(old->demangled(), old->name()) + " from " +
                     sourceOf(*it->second.frag, old->module_index()) + " and " +
                     nameOf(k->demangled(), k->name()) + " from " +
                     sourceOf(*m, k->module_index()) +
                     "; rename one of the kernels";
          return false;
        }
        // Same kernel instantiated in another TU: keep the first copy.
        if (k->launch_sites())
          for (const fbm::LaunchSite *s : *k->launch_sites())
            it->second.extraSites.push_back(s);
      }
    if (m->variables())
      for (const fbm::Variable *v : *m->variables()) {
        auto [it, fresh] =
            vars.try_emplace(v->id(), VarRef{m, v, merged(v->module_index())});
        if (!fresh && it->second.var->name()->str() != v->name()->str()) {
          if (error)
            *error =
                "variable ID collision: " + hexId(v->id()) + " is " +
                nameOf(it->second.var->demangled(), it->second.var->name()) +
                " from " +
                sourceOf(*it->second.frag, it->second.var->module_index()) +
                " and " + nameOf(v->demangled(), v->name()) + " from " +
                sourceOf(*m, v->module_index());
          return false;
        }
      }
  }

  if (!placeRelocated(modules, kernels, vars, error))
    return false;

  flatbuffers::FlatBufferBuilder b(1 << 20);
  std::vector<flatbuffers::Offset<fbm::Module>> mods;
  std::vector<uint64_t> moduleHashes;
  for (auto &[frag, mod] : modules) {
    mods.push_back(tools::copyModule(b, *mod));
    moduleHashes.push_back(mod->fatbin_hash());
  }
  std::vector<flatbuffers::Offset<fbm::Kernel>> ks;
  for (auto &[id, ref] : kernels)
    ks.push_back(
        tools::copyKernel(b, *ref.kernel, ref.module, ref.extraSites,
                          ref.placedName.empty() ? nullptr : &ref.placedName));
  std::vector<flatbuffers::Offset<fbm::Variable>> vs;
  for (auto &[id, ref] : vars)
    vs.push_back(tools::copyVariable(b, *ref.var, ref.module,
                                     ref.placedName.empty() ? nullptr
                                                            : &ref.placedName));
  // Already in ID order (std::map), which LookupByKey relies on.
  // The binary's stubs name the same modules: the build's identity.
  auto root =
      fbm::CreateManifest(b, 1, b.CreateVector(mods), b.CreateVector(ks),
                          b.CreateVector(vs), buildId(std::move(moduleHashes)));
  fbm::FinishManifestBuffer(b, root);
  out.assign(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  return true;
}

static int writeMerged(const std::vector<std::vector<uint8_t>> &frags,
                       const std::string &output) {
  std::vector<uint8_t> merged;
  std::string err;
  if (!mergeFragments(frags, merged, &err))
    return fail(err);
  appendHashTrailer(merged);
  if (!writeFile(output, merged.data(), merged.size(), &err))
    return fail(err);
  return 0;
}

int mergeBinary(const std::string &binary, const std::string &output,
                bool keepSection) {
  std::string err;
  std::vector<uint8_t> bytes;
  std::vector<tools::ElfSection> sections;
  if (!readFile(binary, bytes, &err))
    return fail(err);
  if (!tools::readElfSections(bytes.data(), bytes.size(), sections, &err))
    return fail(binary + ": " + err);
  std::string out = output.empty() ? binary + ".rcm" : output;
  const tools::ElfSection *s =
      tools::findSection(sections, RC_FRAGMENT_SECTION);
  if (!s) {
    // No CUDA translation unit was linked in: no manifest, and none left
    // over from an earlier link of the same output either.
    unlink(out.c_str());
    return 0;
  }
  std::vector<std::vector<uint8_t>> frags;
  if (!tools::splitFragments(bytes.data() + s->offset, s->size, frags, &err))
    return fail(binary + ": section " RC_FRAGMENT_SECTION ": " + err);
  if (int rc = writeMerged(frags, out))
    return rc;
  if (keepSection)
    return 0;
  if (tools::runCommand({tools::objcopyPath(),
                         "--remove-section=" RC_FRAGMENT_SECTION, binary},
                        &err) != 0)
    return fail(binary + ": cannot strip " RC_FRAGMENT_SECTION ": " + err);
  return 0;
}

int mergeFiles(const std::vector<std::string> &files,
               const std::string &output) {
  std::vector<std::vector<uint8_t>> frags;
  std::string err;
  for (const std::string &f : files) {
    std::vector<uint8_t> bytes;
    if (!readFile(f, bytes, &err))
      return fail(err);
    if (bytes.size() >= 8 &&
        std::memcmp(bytes.data(), RC_FRAGMENT_MAGIC, 8) == 0) {
      if (!tools::splitFragments(bytes.data(), bytes.size(), frags, &err))
        return fail(f + ": " + err);
      continue;
    }
    if (!verifyManifestBytes(bytes.data(), bytes.size(), &err))
      return fail(f + ": " + err);
    frags.push_back(std::move(bytes));
  }
  return writeMerged(frags, output);
}

} // namespace rc::link
