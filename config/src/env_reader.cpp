#include "rc/env_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rc {

EnvReader::EnvReader()
    : lookup_([](const char *n) { return std::getenv(n); }) {}

EnvReader::EnvReader(Lookup lookup) : lookup_(std::move(lookup)) {}

const char *EnvReader::value(const char *name) const {
  const char *v = lookup_(name);
  return v && *v ? v : nullptr;
}

void EnvReader::refuse(const char *name, const char *value,
                       const std::string &takes) {
  if (!error_.empty())
    error_ += "; ";
  error_ += std::string(name) + "=" + value + " is not " + takes;
}

uint64_t EnvReader::count(const char *name, uint64_t fallback, uint64_t min,
                          uint64_t max, uint64_t unit) {
  const char *v = value(name);
  if (!v)
    return fallback;
  // Digits only: strtoull alone would take a sign, spaces and "0x".
  bool digits = true;
  for (const char *p = v; *p; ++p)
    digits = digits && *p >= '0' && *p <= '9';
  errno = 0;
  char *end = nullptr;
  unsigned long long n = digits ? std::strtoull(v, &end, 10) : 0;
  if (!digits || errno == ERANGE || n < min || n > max) {
    refuse(name, v,
           "a whole number from " + std::to_string(min) + " to " +
               std::to_string(max));
    return fallback;
  }
  return uint64_t(n) * unit;
}

double EnvReader::decimal(const char *name, double fallback, double min,
                          double max) {
  const char *v = value(name);
  if (!v)
    return fallback;
  char *end = nullptr;
  double d = std::strtod(v, &end);
  if (*end || end == v || !std::isfinite(d) || d < min || d > max) {
    char range[64];
    std::snprintf(range, sizeof range, "a number from %g to %g", min, max);
    refuse(name, v, range);
    return fallback;
  }
  return d;
}

bool EnvReader::onOff(const char *name, bool fallback) {
  const char *v = value(name);
  if (!v)
    return fallback;
  std::string s = v;
  if (s == "0" || s == "1")
    return s == "1";
  refuse(name, v, "0 (off) or 1 (on)");
  return fallback;
}

std::string EnvReader::choice(const char *name, const std::string &fallback,
                              std::initializer_list<const char *> options) {
  const char *v = value(name);
  if (!v)
    return fallback;
  std::string list;
  for (const char *o : options) {
    if (v == std::string(o))
      return v;
    list += list.empty() ? o : std::string(", ") + o;
  }
  refuse(name, v, "one of " + list);
  return fallback;
}

std::string EnvReader::text(const char *name, const std::string &fallback) {
  const char *v = value(name);
  return v ? std::string(v) : fallback;
}

} // namespace rc
