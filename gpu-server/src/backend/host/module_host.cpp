#include "backend/host/module_host.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

namespace rc::server {

namespace {

// Bytes of a PTX fundamental type (.u32, .f64, .b8, ...); 0 if none.
uint32_t typeBytes(const std::string &t) {
  if (t.size() < 3 || t[0] != '.' || !std::strchr("usbf", t[1]))
    return 0;
  int bits = std::atoi(t.c_str() + 2);
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// One ".param ..." declaration: its size and alignment.
bool paramLayout(const std::string &decl, uint32_t *size, uint32_t *align) {
  std::istringstream words(decl);
  std::vector<std::string> w;
  for (std::string s; words >> s;)
    w.push_back(s);
  if (w.size() < 3 || w[0] != ".param")
    return false;
  uint32_t elem = 0, explicitAlign = 0;
  bool pointer = false;
  for (size_t i = 1; i + 1 < w.size(); ++i) {
    if (w[i] == ".ptr")
      pointer = true;
    else if (w[i] == ".align" && i + 2 < w.size())
      explicitAlign = uint32_t(std::atoi(w[++i].c_str()));
    else if (uint32_t b = typeBytes(w[i]))
      elem = b;
  }
  if (!elem)
    return false;
  uint32_t count = 1;
  const std::string &last = w.back();
  if (size_t open = last.find('['); open != std::string::npos)
    count = uint32_t(std::atoi(last.c_str() + open + 1));
  *size = elem * count;
  // With .ptr, .align is the pointee's; the parameter is the pointer.
  *align = explicitAlign && !pointer ? explicitAlign : elem;
  return count > 0 && *align > 0;
}

} // namespace

bool ptxEntryLayout(const std::string &ptx, const std::string &name,
                    KernelInfo *out, std::string *why) {
  for (size_t at = ptx.find(".entry"); at != std::string::npos;
       at = ptx.find(".entry", at + 6)) {
    size_t b = at + 6;
    while (b < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[b])))
      ++b;
    size_t e = b;
    while (e < ptx.size() && isIdentChar(ptx[e]))
      ++e;
    if (ptx.compare(b, e - b, name) != 0 || e - b != name.size())
      continue;
    KernelInfo k;
    k.name = k.demangled = name;
    size_t open = ptx.find_first_not_of(" \t\r\n", e);
    if (open == std::string::npos || ptx[open] != '(') {
      *out = std::move(k); // no parameters
      return true;
    }
    size_t close = ptx.find(')', open);
    if (close == std::string::npos)
      break;
    std::string list = ptx.substr(open + 1, close - open - 1);
    std::istringstream decls(list);
    uint32_t offset = 0;
    for (std::string decl; std::getline(decls, decl, ',');) {
      if (decl.find_first_not_of(" \t\r\n") == std::string::npos)
        continue;
      uint32_t size = 0, align = 0;
      if (!paramLayout(decl, &size, &align)) {
        *why = "parameter '" + decl + "' of " + name + " is not understood";
        return false;
      }
      offset = (offset + align - 1) / align * align;
      ParamInfo p;
      p.name = "parameter " + std::to_string(k.params.size());
      p.offset = offset;
      p.size = size;
      k.params.push_back(std::move(p));
      offset += size;
    }
    k.argsSize = offset;
    *out = std::move(k);
    return true;
  }
  *why = "no kernel named '" + name + "' in the module";
  return false;
}

} // namespace rc::server
