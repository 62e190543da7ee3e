#include "rc/server/registry.h"

#include "common/manifest_check.h"
#include "rc/build_id.h"
#include "rc/hex.h"

#include <cstdio>
#include <memory>

namespace rc::server {

namespace {
std::string str(const flatbuffers::String *s) {
  return s ? std::string(s->c_str(), s->size()) : std::string();
}
} // namespace

std::string KernelInfo::describe() const {
  std::string s = "kernel " + (demangled.empty() ? name : demangled);
  if (!firstSite.empty())
    s += " (launched at " + firstSite + ")";
  return s;
}

const KernelInfo *Registry::kernel(uint64_t id) const {
  auto it = kernels.find(id);
  return it == kernels.end() ? nullptr : &it->second;
}

const VariableInfo *Registry::variable(uint64_t id) const {
  auto it = variables.find(id);
  return it == variables.end() ? nullptr : &it->second;
}

bool Registry::holdsBuild(uint64_t id) const { return builds_.count(id) != 0; }

int Registry::manifestByHash(uint64_t hash) const {
  for (size_t i = 0; i < manifests_.size(); ++i)
    if (manifests_[i]->hash == hash)
      return int(i);
  return -1;
}

bool Registry::addFile(const std::string &path, std::string *error) {
  LoadedManifest m;
  if (!loadManifest(path, m, error))
    return false;
  return add(std::move(m), error);
}

bool Registry::addKernel(const manifest::Kernel &k, uint32_t manifestIndex,
                         const std::vector<uint32_t> &moduleMap,
                         std::string *error) {
  const std::string where = manifests_[manifestIndex]->path;
  KernelInfo info;
  info.id = k.id();
  info.name = str(k.name());
  info.demangled = str(k.demangled());
  info.module = moduleMap.at(k.module_index());
  info.argsSize = k.args_size();
  if (k.launch_sites() && k.launch_sites()->size() > 0) {
    const manifest::LaunchSite *s = k.launch_sites()->Get(0);
    info.firstSite = str(s->file()) + ":" + std::to_string(s->line());
  }
  // The layout is what every launch is validated against, so it must be
  // self-consistent: a bad manifest would otherwise let pointer checks read
  // past the argument bytes.
  if (k.params())
    for (const manifest::Param *p : *k.params()) {
      ParamInfo pi;
      pi.name = str(p->name());
      pi.offset = p->offset();
      pi.size = p->size();
      pi.kind = p->kind();
      auto bad = [&](const std::string &why) {
        if (error)
          *error = where + ": kernel " + info.name + " parameter " +
                   str(p->name()) + ": " + why;
        return false;
      };
      if (uint64_t(pi.offset) + pi.size > info.argsSize)
        return bad("extends past args_size " + std::to_string(info.argsSize));
      if (pi.kind == manifest::ParamKind::Pointer) {
        if (pi.size != 8)
          return bad("pointer parameter of size " + std::to_string(pi.size));
        pi.pointerOffsets.push_back(pi.offset);
      } else if (pi.kind == manifest::ParamKind::Aggregate) {
        if (p->pointer_offsets())
          for (uint32_t po : *p->pointer_offsets()) {
            if (uint64_t(po) + 8 > pi.size)
              return bad("pointer field at offset " + std::to_string(po) +
                         " is outside the parameter");
            pi.pointerOffsets.push_back(pi.offset + po);
          }
      } else if (pi.kind != manifest::ParamKind::Value) {
        return bad("unknown parameter kind");
      }
      info.params.push_back(std::move(pi));
    }
  auto it = kernels.find(info.id);
  if (it != kernels.end()) {
    // The same library's manifest may be served twice (two binaries that
    // link it): identical kernels are fine, anything else is a collision.
    if (it->second.name != info.name || it->second.argsSize != info.argsSize) {
      if (error)
        *error = where + ": kernel ID " + hexId(info.id) + " of " + info.name +
                 " collides with " + it->second.name + " from another manifest";
      return false;
    }
    it->second.manifests.push_back(manifestIndex);
    return true;
  }
  info.manifests.push_back(manifestIndex);
  kernels.emplace(info.id, std::move(info));
  return true;
}

bool Registry::add(LoadedManifest loaded, std::string *error) {
  if (!loaded.root) {
    if (error)
      *error = loaded.path + ": manifest was not verified";
    return false;
  }
  if (manifestByHash(loaded.hash) >= 0)
    return true; // the same file twice: nothing new
  // Every launch is validated against the manifest, and the GPU runs its
  // fatbins: it must agree with itself and with its cubins. One bit flipped
  // in a layout, a hash or the device code is refused here.
  tools::ManifestCheck check = tools::checkManifest(*loaded.root);
  if (!check.consistent()) {
    size_t contradictions = 0;
    std::string first;
    for (const tools::ManifestProblem &p : check.problems)
      if (!p.unchecked && contradictions++ == 0)
        first = p.text;
    if (error)
      *error = loaded.path +
               ": refused, it contradicts itself or its cubins: " + first +
               (contradictions > 1
                    ? " (and " + std::to_string(contradictions - 1) + " more)"
                    : std::string()) +
               "; `rc-manifest verify " + loaded.path + "` lists them";
    return false;
  }
  builds_.insert(buildIdOf(*loaded.root));
  uint32_t index = uint32_t(manifests_.size());
  manifests_.push_back(std::make_unique<LoadedManifest>(std::move(loaded)));
  const LoadedManifest &lm = *manifests_.back();
  const manifest::Manifest &m = *lm.root;

  // Modules with the same fatbin are loaded once, whichever manifest has them.
  std::vector<uint32_t> moduleMap;
  if (m.modules())
    for (const manifest::Module *mod : *m.modules()) {
      uint32_t slot = uint32_t(modules.size());
      for (uint32_t i = 0; i < modules.size(); ++i)
        if (modules[i].fatbinHash == mod->fatbin_hash() &&
            modules[i].fatbinSize ==
                (mod->fatbin() ? mod->fatbin()->size() : 0))
          slot = i;
      if (slot == modules.size()) {
        ModuleInfo mi;
        mi.source = str(mod->source());
        mi.fatbinHash = mod->fatbin_hash();
        if (mod->fatbin()) {
          mi.fatbin = mod->fatbin()->data();
          mi.fatbinSize = mod->fatbin()->size();
        }
        modules.push_back(std::move(mi));
      }
      moduleMap.push_back(slot);
    }

  if (m.kernels())
    for (const manifest::Kernel *k : *m.kernels())
      if (!addKernel(*k, index, moduleMap, error))
        return false;

  if (m.variables())
    for (const manifest::Variable *v : *m.variables()) {
      if (v->module_index() >= moduleMap.size() || !v->name()) {
        if (error)
          *error = lm.path + ": variable " + hexId(v->id()) +
                   " names a module that does not exist";
        return false;
      }
      auto it = variables.find(v->id());
      if (it != variables.end()) {
        if (it->second.name != str(v->name()) || it->second.size != v->size()) {
          if (error)
            *error = lm.path + ": variable ID " + hexId(v->id()) + " of " +
                     str(v->name()) + " collides with " + it->second.name;
          return false;
        }
        it->second.manifests.push_back(index);
        continue;
      }
      VariableInfo vi;
      vi.id = v->id();
      vi.name = str(v->name());
      vi.demangled = str(v->demangled());
      vi.size = v->size();
      vi.module = moduleMap[v->module_index()];
      vi.manifests.push_back(index);
      variables.emplace(vi.id, std::move(vi));
    }
  return true;
}

} // namespace rc::server
