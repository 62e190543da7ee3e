#include "rc/manifest_check.h"

#include "rc/build_id.h"
#include "rc/fatbin.h"
#include "rc/fatbin_images.h"
#include "rc/kernel_names.h"

#include <algorithm>
#include <map>

namespace rc::tools {

namespace fbm = rc::manifest;

namespace {

struct Cubin {
  uint32_t arch;
  std::map<std::string, CubinKernel> kernels;
  std::map<std::string, uint64_t> symbols;
};

struct ModuleCubins {
  std::vector<Cubin> cubins;
  std::string problem; // why this module's cubins cannot be read
};

std::string moduleName(const fbm::Module &mod, uint32_t index) {
  return "module " + std::to_string(index) + " (" +
         (mod.source() ? mod.source()->str() : "no source") + ")";
}

ModuleCubins loadModule(const fbm::Module &mod) {
  ModuleCubins out;
  if (!mod.fatbin() || mod.fatbin()->size() == 0) {
    out.problem = "has no fatbin (fragment not completed by rc-link embed?)";
    return out;
  }
  std::vector<FatbinImage> images;
  std::string err;
  if (!parseFatbin(mod.fatbin()->data(), mod.fatbin()->size(), images, &err)) {
    out.problem = "fatbin: " + err;
    return out;
  }
  for (const FatbinImage &img : images) {
    if (img.kind != 2)
      continue; // PTX carries no parameter records
    if (img.compressed) {
      out.problem = "compressed cubin for sm_" + std::to_string(img.arch) +
                    " is not supported (build without -compress-mode)";
      return out;
    }
    Cubin c{img.arch, {}, {}};
    if (!readCubinKernels(img.data, img.size, c.kernels, &err) ||
        !readCubinSymbols(img.data, img.size, c.symbols, &err)) {
      out.problem = "cubin sm_" + std::to_string(img.arch) + ": " + err;
      return out;
    }
    out.cubins.push_back(std::move(c));
  }
  if (out.cubins.empty())
    out.problem = "fatbin holds no cubin (PTX only): nothing to verify against";
  return out;
}

uint32_t alignUp(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

class Checker {
public:
  explicit Checker(const fbm::Manifest &m) : m_(m) {}

  ManifestCheck run() {
    checkModules();
    if (m_.kernels())
      for (const fbm::Kernel *k : *m_.kernels())
        checkKernel(*k);
    if (m_.variables())
      for (const fbm::Variable *v : *m_.variables())
        checkVariable(*v);
    return std::move(out_);
  }

private:
  void problem(std::string text, bool unchecked = false) {
    out_.problems.push_back({std::move(text), unchecked});
  }

  // The bytes must be the ones the hashes name: the runtime ties registered
  // stubs to modules by these hashes, and nothing else covers the code.
  void checkModules() {
    uint32_t n = m_.modules() ? m_.modules()->size() : 0;
    for (uint32_t i = 0; i < n; ++i) {
      const fbm::Module &mod = *m_.modules()->Get(i);
      if (mod.fatbin() && mod.fatbin()->size() &&
          fatbinHash(mod.fatbin()->data(), mod.fatbin()->size()) !=
              mod.fatbin_hash())
        problem(moduleName(mod, i) + ": fatbin_hash " +
                hexId(mod.fatbin_hash()) + " is not the hash of its fatbin (" +
                hexId(fatbinHash(mod.fatbin()->data(), mod.fatbin()->size())) +
                ")");
      modules_.push_back(loadModule(mod));
    }
    if (m_.build_id() && m_.build_id() != buildIdOf(m_))
      problem("build_id " + hexId(m_.build_id()) +
              " is not the identity of its modules (" + hexId(buildIdOf(m_)) +
              ")");
  }

  // The cubins of module `index` of `what` ("kernel NAME (0x...)"), or
  // null after reporting why there are none to check against.
  const ModuleCubins *cubinsFor(uint32_t index, const std::string &what) {
    if (index >= modules_.size()) {
      problem(what + ": names module " + std::to_string(index) +
              ", the manifest has " + std::to_string(modules_.size()));
      return nullptr;
    }
    if (!modules_[index].problem.empty()) {
      problem(what + ": module " + std::to_string(index) + " " +
                  modules_[index].problem,
              /*unchecked=*/true);
      return nullptr;
    }
    return &modules_[index];
  }

  void checkKernel(const fbm::Kernel &k) {
    std::string what = "kernel " + displayName(k) + " (" + hexId(k.id()) + ")";
    auto report = [&](const std::string &how) { problem(what + ": " + how); };
    const ModuleCubins *cubins = cubinsFor(k.module_index(), what);
    if (!cubins)
      return;
    const ModuleCubins &mc = *cubins;
    bool found = false;
    std::vector<std::string> missing; // cubins without this kernel
    for (const Cubin &cubin : mc.cubins) {
      auto it = cubin.kernels.find(k.name() ? k.name()->str() : "");
      std::string sm = "sm_" + std::to_string(cubin.arch);
      if (it == cubin.kernels.end()) {
        missing.push_back(sm);
        continue;
      }
      found = true;
      out_.archs.insert(cubin.arch);
      const CubinKernel &ck = it->second;
      uint32_t np = k.params() ? k.params()->size() : 0;
      if (np != ck.params.size()) {
        report("manifest has " + std::to_string(np) + " params, cubin (" + sm +
               ") has " + std::to_string(ck.params.size()));
        continue;
      }
      uint32_t maxAlign = 1;
      for (uint32_t i = 0; i < np; ++i) {
        const fbm::Param *p = k.params()->Get(i);
        const CubinParam &cp = ck.params[i];
        maxAlign = std::max(maxAlign, p->align());
        if (cp.ordinal != i || p->offset() != cp.offset || p->size() != cp.size)
          report("param #" + std::to_string(i) + " '" +
                 (p->name() ? p->name()->str() : "") + "': manifest offset " +
                 std::to_string(p->offset()) + " size " +
                 std::to_string(p->size()) + ", cubin (" + sm + ") offset " +
                 std::to_string(cp.offset) + " size " +
                 std::to_string(cp.size));
      }
      // The packed buffer may be padded to the strictest parameter
      // alignment, but never shorter than what the kernel reads.
      if (ck.paramBytes >= 0 && k.args_size() != uint32_t(ck.paramBytes) &&
          k.args_size() != alignUp(uint32_t(ck.paramBytes), maxAlign))
        report("args_size " + std::to_string(k.args_size()) + ", cubin (" + sm +
               ") parameter bank " + std::to_string(ck.paramBytes) + " bytes");
    }
    if (!found) {
      out_.kernelsWithoutDeviceCode.insert(k.id());
      out_.notes.push_back(what + ": in no cubin of module " +
                           std::to_string(k.module_index()) +
                           " (device code compiled out): launching it fails");
    } else {
      for (const std::string &sm : missing)
        report("missing from the " + sm + " cubin of module " +
               std::to_string(k.module_index()));
    }
    ++out_.kernelsChecked;
  }

  // __device__ / __constant__ variables: a symbol of the same size.
  void checkVariable(const fbm::Variable &v) {
    ++out_.variables;
    std::string name = v.name() ? v.name()->str() : "";
    std::string what = "variable " + name + " (" + hexId(v.id()) + ")";
    auto report = [&](const std::string &how) { problem(what + ": " + how); };
    const ModuleCubins *cubins = cubinsFor(v.module_index(), what);
    if (!cubins)
      return;
    for (const Cubin &cubin : cubins->cubins) {
      std::string sm = "sm_" + std::to_string(cubin.arch);
      auto it = cubin.symbols.find(name);
      if (it == cubin.symbols.end() && v.internal())
        ++out_.droppedVariables; // unused `static __device__` data
      else if (it == cubin.symbols.end())
        report("no symbol of that name in the " + sm + " cubin");
      else if (it->second != v.size())
        report("manifest size " + std::to_string(v.size()) + ", cubin (" + sm +
               ") symbol size " + std::to_string(it->second));
    }
  }

  const fbm::Manifest &m_;
  std::vector<ModuleCubins> modules_;
  ManifestCheck out_;
};

} // namespace

bool ManifestCheck::consistent() const {
  return std::all_of(problems.begin(), problems.end(),
                     [](const ManifestProblem &p) { return p.unchecked; });
}

ManifestCheck checkManifest(const fbm::Manifest &m) { return Checker(m).run(); }

} // namespace rc::tools
