#include "manifests/kernel_index.h"

namespace rc::rt {

void KernelIndex::add(std::unique_ptr<LoadedManifest> m) {
  const manifest::Manifest *root = m->root;
  std::vector<uint64_t> moduleHashes;
  if (root->modules())
    for (const manifest::Module *mod : *root->modules())
      moduleHashes.push_back(mod->fatbin_hash());
  if (root->kernels())
    for (const manifest::Kernel *k : *root->kernels()) {
      kernels_.emplace(k->id(), k);
      if (k->module_index() < moduleHashes.size())
        kernelModules_[k->id()] = moduleHashes[k->module_index()];
      if (k->module_index() < moduleHashes.size() && k->name())
        kernelsByName_[{moduleHashes[k->module_index()], k->name()->str()}] = k;
    }
  if (root->variables())
    for (const manifest::Variable *v : *root->variables()) {
      vars_.emplace(v->id(), v);
      if (v->module_index() < moduleHashes.size() && v->name())
        varsByName_[{moduleHashes[v->module_index()], v->name()->str()}] = v;
    }
  manifests_.push_back(std::move(m));
}

std::vector<uint64_t> KernelIndex::hashes() const {
  std::vector<uint64_t> out;
  for (const auto &m : manifests_)
    out.push_back(m->hash);
  return out;
}

const manifest::Kernel *KernelIndex::kernel(uint64_t id) const {
  auto it = kernels_.find(id);
  return it == kernels_.end() ? nullptr : it->second;
}

uint64_t KernelIndex::moduleHashOf(uint64_t id) const {
  auto it = kernelModules_.find(id);
  return it == kernelModules_.end() ? 0 : it->second;
}

const manifest::Kernel *KernelIndex::kernelFor(uint64_t moduleHash,
                                               const std::string &name) const {
  auto it = kernelsByName_.find({moduleHash, name});
  return it == kernelsByName_.end() ? nullptr : it->second;
}

const manifest::Variable *KernelIndex::variable(uint64_t id) const {
  auto it = vars_.find(id);
  return it == vars_.end() ? nullptr : it->second;
}

const manifest::Variable *
KernelIndex::variableFor(uint64_t moduleHash, const std::string &name) const {
  auto it = varsByName_.find({moduleHash, name});
  return it == varsByName_.end() ? nullptr : it->second;
}

std::string KernelIndex::describe(const manifest::Kernel *k) {
  if (!k)
    return "unknown kernel";
  std::string s = k->demangled() && k->demangled()->size()
                      ? k->demangled()->str()
                      : (k->name() ? k->name()->str() : "kernel");
  // The launch ID does not say which site launched it: list them all (a
  // few), rather than pretend the first one did.
  auto sites = k->launch_sites();
  if (sites && sites->size()) {
    s += sites->size() == 1 ? " (launched at " : " (launch sites ";
    for (uint32_t i = 0; i < sites->size() && i < 3; ++i) {
      const manifest::LaunchSite *site = sites->Get(i);
      s += i ? ", " : "";
      s += site->file() ? site->file()->str() : "?";
      s += ":" + std::to_string(site->line());
    }
    if (sites->size() > 3)
      s += " and " + std::to_string(sites->size() - 3) + " more";
    s += ")";
  }
  return s;
}

} // namespace rc::rt
