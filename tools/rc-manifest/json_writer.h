// A minimal JSON writer (strings escaped, no pretty-printing beyond one
// object per line): enough for `--json` output that scripts and lit read.
#ifndef RC_MANIFEST_JSON_WRITER_H
#define RC_MANIFEST_JSON_WRITER_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace rc::tools {

inline std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c);
      }
    }
  }
  return out + "\"";
}

} // namespace rc::tools

#endif
