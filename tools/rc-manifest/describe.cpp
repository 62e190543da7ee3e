#include "describe.h"

#include "json_writer.h"

#include <cstdio>
#include <cstdlib>

namespace rc::tools {

namespace fbm = rc::manifest;

static std::string s(const flatbuffers::String *str) {
  return str ? str->str() : "";
}

std::string kindName(fbm::ParamKind kind) {
  switch (kind) {
  case fbm::ParamKind::Value:
    return "value";
  case fbm::ParamKind::Pointer:
    return "pointer";
  case fbm::ParamKind::Aggregate:
    return "aggregate";
  }
  return "unknown";
}

std::string varKindName(fbm::VarKind kind) {
  return kind == fbm::VarKind::Constant ? "__constant__" : "__device__";
}

static std::string moduleSource(const fbm::Manifest &m, uint32_t i) {
  if (!m.modules() || i >= m.modules()->size())
    return "";
  return s(m.modules()->Get(i)->source());
}

// "3 params (ptr, ptr, 4), 20 bytes"
static std::string paramSummary(const fbm::Kernel &k) {
  std::string out;
  uint32_t n = k.params() ? k.params()->size() : 0;
  out = std::to_string(n) + (n == 1 ? " param" : " params");
  if (n) {
    out += " (";
    for (uint32_t i = 0; i < n; ++i) {
      const fbm::Param *p = k.params()->Get(i);
      if (i)
        out += ", ";
      if (p->kind() == fbm::ParamKind::Pointer)
        out += "ptr";
      else if (p->kind() == fbm::ParamKind::Aggregate)
        out += "struct" + std::to_string(p->size()) +
               (p->pointer_offsets() && p->pointer_offsets()->size()
                    ? "+" + std::to_string(p->pointer_offsets()->size()) + "ptr"
                    : "");
      else
        out += std::to_string(p->size());
    }
    out += ")";
  }
  return out + ", " + std::to_string(k.args_size()) + " bytes";
}

static std::string paramJson(const fbm::Param &p) {
  std::string ptrs = "[";
  if (p.pointer_offsets())
    for (uint32_t i = 0; i < p.pointer_offsets()->size(); ++i)
      ptrs += (i ? "," : "") + std::to_string(p.pointer_offsets()->Get(i));
  ptrs += "]";
  return "{\"name\":" + jsonString(s(p.name())) +
         ",\"type\":" + jsonString(s(p.type())) +
         ",\"offset\":" + std::to_string(p.offset()) +
         ",\"size\":" + std::to_string(p.size()) +
         ",\"align\":" + std::to_string(p.align()) +
         ",\"kind\":" + jsonString(kindName(p.kind())) +
         ",\"pointer_offsets\":" + ptrs + "}";
}

static std::string kernelJson(const fbm::Manifest &m, const fbm::Kernel &k,
                              bool full) {
  std::string out =
      "{\"id\":" + jsonString(hexId(k.id())) +
      ",\"name\":" + jsonString(s(k.name())) +
      ",\"demangled\":" + jsonString(displayName(k)) +
      ",\"internal\":" + (k.internal() ? "true" : "false") +
      ",\"module\":" + std::to_string(k.module_index()) +
      ",\"source\":" + jsonString(moduleSource(m, k.module_index())) +
      ",\"args_size\":" + std::to_string(k.args_size()) +
      ",\"num_params\":" + std::to_string(k.params() ? k.params()->size() : 0);
  if (full) {
    out += ",\"params\":[";
    if (k.params())
      for (uint32_t i = 0; i < k.params()->size(); ++i)
        out += (i ? "," : "") + paramJson(*k.params()->Get(i));
    out += "],\"launch_sites\":[";
    if (k.launch_sites())
      for (uint32_t i = 0; i < k.launch_sites()->size(); ++i) {
        const fbm::LaunchSite *ls = k.launch_sites()->Get(i);
        out += std::string(i ? "," : "") +
               "{\"file\":" + jsonString(s(ls->file())) +
               ",\"line\":" + std::to_string(ls->line()) +
               ",\"column\":" + std::to_string(ls->column()) +
               ",\"how\":" + jsonString(s(ls->how())) + "}";
      }
    out += "]";
  }
  return out + "}";
}

int listKernels(const fbm::Manifest &m, bool json) {
  if (json) {
    std::printf("{\"modules\":[");
    uint32_t nm = m.modules() ? m.modules()->size() : 0;
    for (uint32_t i = 0; i < nm; ++i) {
      const fbm::Module *mod = m.modules()->Get(i);
      std::printf("%s{\"index\":%u,\"source\":%s,\"fatbin_hash\":\"%s\","
                  "\"fatbin_size\":%u}",
                  i ? "," : "", i, jsonString(s(mod->source())).c_str(),
                  hexId(mod->fatbin_hash()).c_str(),
                  mod->fatbin() ? mod->fatbin()->size() : 0);
    }
    std::printf("],\n\"kernels\":[\n");
    if (m.kernels())
      for (uint32_t i = 0; i < m.kernels()->size(); ++i)
        std::printf("%s%s\n", i ? "," : "",
                    kernelJson(m, *m.kernels()->Get(i), false).c_str());
    std::printf("],\n\"variables\":[\n");
    if (m.variables())
      for (uint32_t i = 0; i < m.variables()->size(); ++i) {
        const fbm::Variable *v = m.variables()->Get(i);
        std::printf("%s{\"id\":%s,\"name\":%s,\"kind\":%s,\"size\":%llu,"
                    "\"module\":%u}\n",
                    i ? "," : "", jsonString(hexId(v->id())).c_str(),
                    jsonString(s(v->name())).c_str(),
                    jsonString(varKindName(v->kind())).c_str(),
                    (unsigned long long)v->size(), v->module_index());
      }
    std::printf("]}\n");
    return 0;
  }
  if (m.kernels())
    for (const fbm::Kernel *k : *m.kernels())
      std::printf("%s  %s  module %u  %s\n", hexId(k->id()).c_str(),
                  displayName(*k).c_str(), k->module_index(),
                  paramSummary(*k).c_str());
  if (m.variables())
    for (const fbm::Variable *v : *m.variables())
      std::printf("%s  variable %s  module %u  %s, %llu bytes\n",
                  hexId(v->id()).c_str(),
                  s(v->demangled()).empty() ? s(v->name()).c_str()
                                            : s(v->demangled()).c_str(),
                  v->module_index(), varKindName(v->kind()).c_str(),
                  (unsigned long long)v->size());
  return 0;
}

std::vector<const fbm::Kernel *> findKernels(const fbm::Manifest &m,
                                             const std::string &key) {
  std::vector<const fbm::Kernel *> out;
  if (!m.kernels())
    return out;
  if (key.size() > 2 && key[0] == '0' && (key[1] == 'x' || key[1] == 'X')) {
    char *end = nullptr;
    uint64_t id = std::strtoull(key.c_str() + 2, &end, 16);
    if (end && *end == 0)
      for (const fbm::Kernel *k : *m.kernels())
        if (k->id() == id)
          out.push_back(k);
    return out;
  }
  for (const fbm::Kernel *k : *m.kernels()) {
    std::string d = displayName(*k);
    std::string bare = d.substr(0, d.find('('));
    if (s(k->name()) == key || d == key || bare == key)
      out.push_back(k);
  }
  return out;
}

void showKernel(const fbm::Manifest &m, const fbm::Kernel &k, bool json) {
  if (json) {
    std::printf("%s\n", kernelJson(m, k, true).c_str());
    return;
  }
  std::printf("kernel %s %s\n", hexId(k.id()).c_str(), displayName(k).c_str());
  std::printf("  mangled: %s%s\n", s(k.name()).c_str(),
              k.internal() ? " (internal linkage: ID salted with its TU)" : "");
  std::printf("  module %u: %s\n", k.module_index(),
              moduleSource(m, k.module_index()).c_str());
  std::printf("  argument buffer: %u bytes\n", k.args_size());
  std::printf("  %-3s %-16s %-28s %6s %5s %5s %-9s %s\n", "#", "name", "type",
              "offset", "size", "align", "kind", "pointer offsets");
  if (k.params())
    for (uint32_t i = 0; i < k.params()->size(); ++i) {
      const fbm::Param *p = k.params()->Get(i);
      std::string ptrs;
      if (p->pointer_offsets())
        for (uint32_t j = 0; j < p->pointer_offsets()->size(); ++j)
          ptrs += (j ? "," : "") + std::to_string(p->pointer_offsets()->Get(j));
      std::printf("  %-3u %-16s %-28s %6u %5u %5u %-9s %s\n", i,
                  s(p->name()).c_str(), s(p->type()).c_str(), p->offset(),
                  p->size(), p->align(), kindName(p->kind()).c_str(),
                  ptrs.empty() ? "-" : ptrs.c_str());
    }
  std::printf("  launch sites:%s\n",
              k.launch_sites() && k.launch_sites()->size() ? "" : " none");
  if (k.launch_sites())
    for (const fbm::LaunchSite *ls : *k.launch_sites())
      std::printf("    %s:%u:%u %s\n", s(ls->file()).c_str(), ls->line(),
                  ls->column(), s(ls->how()).c_str());
}

} // namespace rc::tools
