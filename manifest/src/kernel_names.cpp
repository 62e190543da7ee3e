#include "rc/kernel_names.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>

namespace rc::tools {

std::string hexId(uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, id);
  return buf;
}

bool externalizedName(const std::string &plain,
                      const std::map<std::string, uint64_t> &names,
                      std::string *out) {
  if (names.count(plain))
    return false;
  std::string prefix = plain + "__static__";
  auto it = names.lower_bound(prefix);
  if (it == names.end() || it->first.compare(0, prefix.size(), prefix) != 0)
    return false;
  *out = it->first;
  return true;
}

std::string displayName(const rc::manifest::Kernel &k) {
  if (k.demangled() && k.demangled()->size())
    return k.demangled()->str();
  // Fragments from other producers may omit it: demangle here.
  std::string name = k.name() ? k.name()->str() : "";
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

} // namespace rc::tools
