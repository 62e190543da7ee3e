#include "diff.h"

#include "describe.h"

#include <cstdio>
#include <map>

namespace rc::tools {

namespace fbm = rc::manifest;

namespace {

std::map<uint64_t, const fbm::Kernel *> byId(const fbm::Manifest &m) {
  std::map<uint64_t, const fbm::Kernel *> out;
  if (m.kernels())
    for (const fbm::Kernel *k : *m.kernels())
      out[k->id()] = k;
  return out;
}

std::string layout(const fbm::Kernel &k) {
  std::string out = std::to_string(k.args_size()) + " bytes:";
  if (k.params())
    for (const fbm::Param *p : *k.params()) {
      out += " " + std::to_string(p->offset()) + "/" +
             std::to_string(p->size()) + "/" + std::to_string(p->align()) +
             "/" + kindName(p->kind());
      if (p->pointer_offsets() && p->pointer_offsets()->size()) {
        out += "[";
        for (uint32_t i = 0; i < p->pointer_offsets()->size(); ++i)
          out += (i ? "," : "") + std::to_string(p->pointer_offsets()->Get(i));
        out += "]";
      }
    }
  return out;
}

} // namespace

bool diffManifests(const LoadedManifest &a, const LoadedManifest &b) {
  auto ka = byId(*a.root), kb = byId(*b.root);
  unsigned changes = 0;
  for (auto &[id, k] : ka)
    if (!kb.count(id)) {
      std::printf("- %s %s\n", hexId(id).c_str(), displayName(*k).c_str());
      ++changes;
    }
  for (auto &[id, k] : kb)
    if (!ka.count(id)) {
      std::printf("+ %s %s\n", hexId(id).c_str(), displayName(*k).c_str());
      ++changes;
    }
  for (auto &[id, k] : ka) {
    auto it = kb.find(id);
    if (it == kb.end())
      continue;
    std::string la = layout(*k), lb = layout(*it->second);
    if (k->name()->str() != it->second->name()->str()) {
      std::printf("! %s renamed: %s -> %s\n", hexId(id).c_str(),
                  k->name()->c_str(), it->second->name()->c_str());
      ++changes;
    } else if (la != lb) {
      std::printf("~ %s %s layout changed:\n    %s\n    %s\n",
                  hexId(id).c_str(), displayName(*k).c_str(), la.c_str(),
                  lb.c_str());
      ++changes;
    }
  }
  // Variables: added, removed, or resized.
  std::map<uint64_t, const fbm::Variable *> va, vb;
  if (a.root->variables())
    for (const fbm::Variable *v : *a.root->variables())
      va[v->id()] = v;
  if (b.root->variables())
    for (const fbm::Variable *v : *b.root->variables())
      vb[v->id()] = v;
  for (auto &[id, v] : va) {
    auto it = vb.find(id);
    if (it == vb.end()) {
      std::printf("- %s variable %s\n", hexId(id).c_str(), v->name()->c_str());
      ++changes;
    } else if (it->second->name()->str() != v->name()->str()) {
      std::printf("! %s variable renamed: %s -> %s\n", hexId(id).c_str(),
                  v->name()->c_str(), it->second->name()->c_str());
      ++changes;
    } else if (it->second->size() != v->size() ||
               it->second->kind() != v->kind()) {
      std::printf("~ %s variable %s: %s %llu bytes -> %s %llu bytes\n",
                  hexId(id).c_str(), v->name()->c_str(),
                  varKindName(v->kind()).c_str(), (unsigned long long)v->size(),
                  varKindName(it->second->kind()).c_str(),
                  (unsigned long long)it->second->size());
      ++changes;
    }
  }
  for (auto &[id, v] : vb)
    if (!va.count(id)) {
      std::printf("+ %s variable %s\n", hexId(id).c_str(), v->name()->c_str());
      ++changes;
    }
  if (changes == 0)
    std::printf("identical kernels and layouts (%zu kernels)\n", ka.size());
  return changes == 0;
}

} // namespace rc::tools
