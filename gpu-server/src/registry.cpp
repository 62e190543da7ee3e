#include "rc/server/registry.h"

#include "rc/build_id.h"
#include "rc/hex.h"
#include "rc/manifest_check.h"

#include <cstdio>
#include <memory>

namespace rc::server {

namespace {
std::string str(const flatbuffers::String *s) {
  return s ? std::string(s->c_str(), s->size()) : std::string();
}

bool refuse(std::string *error, const std::string &why) {
  if (error)
    *error = why;
  return false;
}

// Reads kernel `k` of the manifest at `where`; info->module is the
// manifest's own module index until the manifest is committed.
bool readKernel(const manifest::Kernel &k, const std::string &where,
                uint32_t moduleCount, KernelInfo *info, std::string *error) {
  info->id = k.id();
  info->name = str(k.name());
  info->demangled = str(k.demangled());
  info->module = k.module_index();
  info->argsSize = k.args_size();
  if (info->module >= moduleCount)
    return refuse(error, where + ": kernel " + info->name +
                             " names a module that does not exist");
  if (k.launch_sites() && k.launch_sites()->size() > 0) {
    const manifest::LaunchSite *s = k.launch_sites()->Get(0);
    info->firstSite = str(s->file()) + ":" + std::to_string(s->line());
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
        return refuse(error, where + ": kernel " + info->name + " parameter " +
                                 pi.name + ": " + why);
      };
      if (uint64_t(pi.offset) + pi.size > info->argsSize)
        return bad("extends past args_size " + std::to_string(info->argsSize));
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
      info->params.push_back(std::move(pi));
    }
  return true;
}

bool readVariable(const manifest::Variable &v, const std::string &where,
                  uint32_t moduleCount, VariableInfo *info,
                  std::string *error) {
  if (v.module_index() >= moduleCount || !v.name())
    return refuse(error, where + ": variable " + hexId(v.id()) +
                             " names a module that does not exist");
  info->id = v.id();
  info->name = str(v.name());
  info->demangled = str(v.demangled());
  info->size = v.size();
  info->module = v.module_index();
  return true;
}

bool sameParam(const ParamInfo &a, const ParamInfo &b) {
  return a.offset == b.offset && a.size == b.size && a.kind == b.kind &&
         a.pointerOffsets == b.pointerOffsets;
}

// One definition: the same code (module), symbol and layout. Anything else
// under the same ID is another program's kernel.
bool sameKernel(const KernelInfo &a, const KernelInfo &b) {
  if (a.module != b.module || a.name != b.name || a.argsSize != b.argsSize ||
      a.params.size() != b.params.size())
    return false;
  for (size_t i = 0; i < a.params.size(); ++i)
    if (!sameParam(a.params[i], b.params[i]))
      return false;
  return true;
}

bool sameVariable(const VariableInfo &a, const VariableInfo &b) {
  return a.module == b.module && a.name == b.name && a.size == b.size;
}

// The definition of `info` that `byId` already holds, or null.
template <class Info, class SameFn>
Info *heldAlready(std::unordered_multimap<uint64_t, Info *> &byId,
                  const Info &info, SameFn same) {
  auto [first, last] = byId.equal_range(info.id);
  for (auto it = first; it != last; ++it)
    if (same(*it->second, info))
      return it->second;
  return nullptr;
}

} // namespace

std::string KernelInfo::describe() const {
  std::string s = "kernel " + (demangled.empty() ? name : demangled);
  if (!firstSite.empty())
    s += " (launched at " + firstSite + ")";
  return s;
}

const KernelInfo *Registry::kernelIn(uint32_t manifest, uint64_t id) const {
  if (manifest >= scopes_.size())
    return nullptr;
  const auto &table = scopes_[manifest].kernels;
  auto it = table.find(id);
  return it == table.end() ? nullptr : it->second;
}

const VariableInfo *Registry::variableIn(uint32_t manifest, uint64_t id) const {
  if (manifest >= scopes_.size())
    return nullptr;
  const auto &table = scopes_[manifest].variables;
  auto it = table.find(id);
  return it == table.end() ? nullptr : it->second;
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

bool Registry::add(LoadedManifest loaded, std::string *error) {
  if (!loaded.root)
    return refuse(error, loaded.path + ": manifest was not verified");
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
    return refuse(
        error,
        loaded.path +
            ": refused, it contradicts itself or its cubins: " + first +
            (contradictions > 1
                 ? " (and " + std::to_string(contradictions - 1) + " more)"
                 : std::string()) +
            "; `rc-manifest verify " + loaded.path + "` lists them");
  }

  // Read everything first: a manifest refused halfway must leave nothing.
  const manifest::Manifest &m = *loaded.root;
  const uint32_t moduleCount = m.modules() ? m.modules()->size() : 0;
  std::vector<KernelInfo> newKernels;
  std::vector<VariableInfo> newVariables;
  Scope scope;
  if (m.kernels())
    for (const manifest::Kernel *k : *m.kernels()) {
      KernelInfo info;
      if (!readKernel(*k, loaded.path, moduleCount, &info, error))
        return false;
      info.hasDeviceCode = !check.kernelsWithoutDeviceCode.count(info.id);
      if (!scope.kernels.emplace(info.id, nullptr).second)
        return refuse(error, loaded.path + ": kernel ID " + hexId(info.id) +
                                 " (" + info.name + ") appears twice");
      newKernels.push_back(std::move(info));
    }
  if (m.variables())
    for (const manifest::Variable *v : *m.variables()) {
      VariableInfo info;
      if (!readVariable(*v, loaded.path, moduleCount, &info, error))
        return false;
      if (!scope.variables.emplace(info.id, nullptr).second)
        return refuse(error, loaded.path + ": variable ID " + hexId(info.id) +
                                 " (" + info.name + ") appears twice");
      newVariables.push_back(std::move(info));
    }

  builds_.insert(buildIdOf(m));
  const uint32_t index = uint32_t(manifests_.size());
  manifests_.push_back(std::make_unique<LoadedManifest>(std::move(loaded)));

  // Modules with the same fatbin are loaded once, whichever manifest has
  // them (the pointers are into the manifest's bytes, which stay put).
  std::vector<uint32_t> moduleMap;
  if (m.modules())
    for (const manifest::Module *mod : *m.modules()) {
      size_t size = mod->fatbin() ? mod->fatbin()->size() : 0;
      uint32_t slot = uint32_t(modules.size());
      for (uint32_t i = 0; i < modules.size(); ++i)
        if (modules[i].fatbinHash == mod->fatbin_hash() &&
            modules[i].fatbinSize == size)
          slot = i;
      if (slot == modules.size()) {
        ModuleInfo mi;
        mi.source = str(mod->source());
        mi.fatbinHash = mod->fatbin_hash();
        if (mod->fatbin()) {
          mi.fatbin = mod->fatbin()->data();
          mi.fatbinSize = size;
        }
        modules.push_back(std::move(mi));
      }
      moduleMap.push_back(slot);
    }

  for (KernelInfo &info : newKernels) {
    info.module = moduleMap[info.module];
    KernelInfo *def = heldAlready(kernelsById_, info, sameKernel);
    if (!def) {
      def = &kernels.emplace_back(std::move(info));
      kernelsById_.emplace(def->id, def);
    }
    def->manifests.push_back(index);
    scope.kernels[def->id] = def;
  }
  for (VariableInfo &info : newVariables) {
    info.module = moduleMap[info.module];
    VariableInfo *def = heldAlready(variablesById_, info, sameVariable);
    if (!def) {
      def = &variables.emplace_back(std::move(info));
      variablesById_.emplace(def->id, def);
    }
    def->manifests.push_back(index);
    scope.variables[def->id] = def;
  }
  scopes_.push_back(std::move(scope));
  return true;
}

} // namespace rc::server
