#include "config_file.h"

#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>

#include <map>

namespace rc::server {

namespace {

enum class Kind {
  Text,   // a string: --key=VALUE
  Count,  // an integer: --key=N
  Switch, // a boolean: --key when true
  List,   // strings: --key=V once each ("manifests" -> --manifest)
};

struct Option {
  const char *flag;
  Kind kind;
};

// Every key a config file may hold. Internal options (a worker's) and
// --config itself are not among them.
const std::map<std::string, Option> &options() {
  static const std::map<std::string, Option> kOptions = {
      {"listen", {"--listen", Kind::Text}},
      {"manifests", {"--manifest", Kind::List}},
      {"auth_key_file", {"--auth-key-file", Kind::Text}},
      {"insecure", {"--insecure", Kind::Switch}},
      {"insecure_transport", {"--insecure-transport", Kind::Switch}},
      {"test_device", {"--test-device", Kind::Switch}},
      {"test_devices", {"--test-devices", Kind::Count}},
      {"log_level", {"--log-level", Kind::Text}},
      {"log_format", {"--log-format", Kind::Text}},
      {"devices", {"--devices", Kind::Text}},
      {"metrics", {"--metrics", Kind::Text}},
      {"metrics_listen", {"--metrics-listen", Kind::Text}},
      {"metrics_token_file", {"--metrics-token-file", Kind::Text}},
      {"isolation", {"--isolation", Kind::Text}},
      {"warm_workers", {"--warm-workers", Kind::Count}},
      {"max_workers", {"--max-workers", Kind::Count}},
      {"quotas", {"--quotas", Kind::Text}},
      {"on_key_removed", {"--on-key-removed", Kind::Text}},
      {"cache", {"--cache", Kind::Text}},
      {"cache_dir", {"--cache-dir", Kind::Text}},
      {"cache_disk", {"--cache-disk", Kind::Text}},
  };
  return kOptions;
}

std::string where(const std::string &path, const toml::node &node) {
  return path + " line " + std::to_string(node.source().begin.line);
}

} // namespace

bool configFileOptions(const std::string &path, std::vector<std::string> *out,
                       std::string *error) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error &e) {
    *error = "config file " + path + " line " +
             std::to_string(e.source().begin.line) + ": " +
             std::string(e.description());
    return false;
  }
  out->clear();
  for (const auto &[key, node] : table) {
    const std::string name(key.str());
    auto known = options().find(name);
    if (known == options().end()) {
      *error = "config file " + where(path, node) + ": unknown key '" + name +
               "' (keys are rc-server's options with _ for -, e.g. "
               "auth_key_file; docs/metrics.md)";
      return false;
    }
    const Option &o = known->second;
    auto wrong = [&](const char *want) {
      *error =
          "config file " + where(path, node) + ": " + name + " must be " + want;
      return false;
    };
    switch (o.kind) {
    case Kind::Text:
      if (!node.is_string())
        return wrong("a string");
      out->push_back(std::string(o.flag) + "=" + **node.as_string());
      break;
    case Kind::Count:
      if (!node.is_integer())
        return wrong("a whole number");
      out->push_back(std::string(o.flag) + "=" +
                     std::to_string(**node.as_integer()));
      break;
    case Kind::Switch:
      if (!node.is_boolean())
        return wrong("true or false");
      if (**node.as_boolean())
        out->push_back(o.flag);
      break;
    case Kind::List: {
      const toml::array *items = node.as_array();
      if (!items)
        return wrong("a list of strings");
      for (const toml::node &item : *items) {
        if (!item.is_string())
          return wrong("a list of strings");
        out->push_back(std::string(o.flag) + "=" + **item.as_string());
      }
      break;
    }
    }
  }
  return true;
}

} // namespace rc::server
