// Plain data the AST side collects for one translation unit, before it is
// serialized as a manifest fragment. Kept free of clang types so the writer
// and the collector stay independent.
#ifndef RC_PLUGIN_MODEL_H
#define RC_PLUGIN_MODEL_H

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace rcplugin {

enum class ParamKind : uint8_t { Value = 0, Pointer = 1, Aggregate = 2 };

struct ParamModel {
  std::string name;
  std::string type;
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 1;
  ParamKind kind = ParamKind::Value;
  std::vector<uint32_t> pointerOffsets;
};

struct LaunchSiteInfo {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string how;
  bool operator<(const LaunchSiteInfo &o) const {
    return std::tie(file, line, column, how) <
           std::tie(o.file, o.line, o.column, o.how);
  }
  bool operator==(const LaunchSiteInfo &o) const {
    return !(*this < o) && !(o < *this);
  }
};

struct KernelModel {
  uint64_t id = 0;
  std::string name;
  std::string demangled;
  bool internal = false;
  std::vector<ParamModel> params;
  uint32_t argsSize = 0;
  std::vector<LaunchSiteInfo> launchSites;
};

enum class VarKind : uint8_t { Device = 0, Constant = 1 };

struct VariableInfo {
  uint64_t id = 0;
  std::string name;
  std::string demangled;
  bool internal = false;
  uint64_t size = 0;
  VarKind kind = VarKind::Device;
};

struct Fragment {
  std::string source; // real path of the main file (also the ID salt)
  std::vector<KernelModel> kernels;
  std::vector<VariableInfo> variables;
};

} // namespace rcplugin

#endif
