#include "verify.h"

#include "common/fatbin_images.h"
#include "describe.h"

#include <cstdio>
#include <set>

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
  std::string problem; // why this module cannot be checked
};

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

} // namespace

bool verifyManifest(const LoadedManifest &lm) {
  const fbm::Manifest &m = *lm.root;
  uint32_t nmod = m.modules() ? m.modules()->size() : 0;
  std::vector<ModuleCubins> modules;
  for (uint32_t i = 0; i < nmod; ++i)
    modules.push_back(loadModule(*m.modules()->Get(i)));

  unsigned bad = 0, checked = 0;
  std::set<uint32_t> archs;
  auto report = [&](const fbm::Kernel &k, const std::string &what) {
    std::printf("%s: kernel %s (%s): %s\n", lm.path.c_str(),
                displayName(k).c_str(), hexId(k.id()).c_str(), what.c_str());
    ++bad;
  };
  std::set<uint32_t> reportedModules;
  if (m.kernels())
    for (const fbm::Kernel *k : *m.kernels()) {
      const ModuleCubins &mc = modules[k->module_index()];
      if (!mc.problem.empty()) {
        report(*k, "module " + std::to_string(k->module_index()) + " " +
                       mc.problem);
        continue;
      }
      bool found = false;
      std::vector<std::string> missing; // cubins without this kernel
      for (const Cubin &cubin : mc.cubins) {
        uint32_t arch = cubin.arch;
        auto it = cubin.kernels.find(k->name()->str());
        if (it == cubin.kernels.end()) {
          missing.push_back("sm_" + std::to_string(arch));
          continue;
        }
        found = true;
        archs.insert(arch);
        const CubinKernel &ck = it->second;
        std::string sm = "sm_" + std::to_string(arch);
        uint32_t np = k->params() ? k->params()->size() : 0;
        if (np != ck.params.size()) {
          report(*k, "manifest has " + std::to_string(np) + " params, cubin (" +
                         sm + ") has " + std::to_string(ck.params.size()));
          continue;
        }
        uint32_t maxAlign = 1;
        for (uint32_t i = 0; i < np; ++i) {
          const fbm::Param *p = k->params()->Get(i);
          const CubinParam &cp = ck.params[i];
          maxAlign = std::max(maxAlign, p->align());
          if (cp.ordinal != i || p->offset() != cp.offset ||
              p->size() != cp.size)
            report(*k, "param #" + std::to_string(i) + " '" +
                           (p->name() ? p->name()->str() : "") +
                           "': manifest offset " + std::to_string(p->offset()) +
                           " size " + std::to_string(p->size()) + ", cubin (" +
                           sm + ") offset " + std::to_string(cp.offset) +
                           " size " + std::to_string(cp.size));
        }
        // The packed buffer may be padded to the strictest parameter
        // alignment, but never shorter than what the kernel reads.
        if (ck.paramBytes >= 0 && k->args_size() != uint32_t(ck.paramBytes) &&
            k->args_size() != alignUp(uint32_t(ck.paramBytes), maxAlign))
          report(*k, "args_size " + std::to_string(k->args_size()) +
                         ", cubin (" + sm + ") parameter bank " +
                         std::to_string(ck.paramBytes) + " bytes");
      }
      if (!found)
        report(*k, "not found in any cubin of module " +
                       std::to_string(k->module_index()));
      else
        for (const std::string &sm : missing)
          report(*k, "missing from the " + sm + " cubin of module " +
                         std::to_string(k->module_index()));
      ++checked;
    }
  // __device__ / __constant__ variables: a symbol of the same size.
  unsigned vars = 0, droppedVars = 0;
  if (m.variables())
    for (const fbm::Variable *v : *m.variables()) {
      ++vars;
      auto vreport = [&](const std::string &what) {
        std::printf("%s: variable %s (%s): %s\n", lm.path.c_str(),
                    v->name()->c_str(), hexId(v->id()).c_str(), what.c_str());
        ++bad;
      };
      const ModuleCubins &mc = modules[v->module_index()];
      if (!mc.problem.empty()) {
        vreport("module " + std::to_string(v->module_index()) + " " +
                mc.problem);
        continue;
      }
      for (const Cubin &cubin : mc.cubins) {
        std::string sm = "sm_" + std::to_string(cubin.arch);
        auto it = cubin.symbols.find(v->name()->str());
        if (it == cubin.symbols.end() && v->internal())
          ++droppedVars; // unused `static __device__` data: optimized out
        else if (it == cubin.symbols.end())
          vreport("no symbol of that name in the " + sm + " cubin");
        else if (it->second != v->size())
          vreport("manifest size " + std::to_string(v->size()) + ", cubin (" +
                  sm + ") symbol size " + std::to_string(it->second));
      }
    }
  if (bad) {
    std::printf("%s: FAILED: %u mismatch(es) in %u kernel(s)\n",
                lm.path.c_str(), bad, checked);
    return false;
  }
  std::string archList;
  for (uint32_t a : archs)
    archList += (archList.empty() ? "" : ",") + ("sm_" + std::to_string(a));
  std::string varText;
  if (vars)
    varText = ", " + std::to_string(vars) + " variable(s)";
  if (droppedVars)
    varText += " (" + std::to_string(droppedVars) +
               " unused internal one(s) not in the cubins)";
  std::printf("%s: OK: %u kernel(s) match their cubins (%s)%s\n",
              lm.path.c_str(), checked,
              archList.empty() ? "no kernels" : archList.c_str(),
              varText.c_str());
  return true;
}

} // namespace rc::tools
