#include "common/kernel_names.h"

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
