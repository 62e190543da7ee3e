// The one rule by which every component reads its RC_* variables into its
// settings object, once, when the process (or the library in it) starts:
//
//   unset or empty: the default;
//   set: exactly one value of the variable's kind within its range, or an
//        error naming the variable, the value and what it takes.
//
// A process refuses a bad value instead of guessing: rc-server does not
// start, the client runtime fails every call that needs the device with the
// error, the drivers stop the compile. Before, seven rules coexisted, and
// `12x` could read as 12 in one component and as the default in another.
#ifndef RC_ENV_READER_H
#define RC_ENV_READER_H

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>

namespace rc {

class EnvReader {
public:
  using Lookup = std::function<const char *(const char *name)>;
  EnvReader();                       // the process environment
  explicit EnvReader(Lookup lookup); // tests: any source of values

  // A whole decimal number in [min, max], times `unit` (a variable named
  // ..._MIB has unit 1 << 20); the range is in the variable's own unit.
  uint64_t count(const char *name, uint64_t fallback, uint64_t min,
                 uint64_t max, uint64_t unit = 1);
  // A decimal number (fraction allowed) in [min, max].
  double decimal(const char *name, double fallback, double min, double max);
  // `0` (off) or `1` (on).
  bool onOff(const char *name, bool fallback);
  // One of `options`.
  std::string choice(const char *name, const std::string &fallback,
                     std::initializer_list<const char *> options);
  // Any string (a path, an address, a word the reader checks itself).
  std::string text(const char *name, const std::string &fallback = "");

  // Empty when every value read so far was valid; else each bad one's
  // sentence, joined by "; ".
  const std::string &error() const { return error_; }
  bool ok() const { return error_.empty(); }

private:
  const char *value(const char *name) const; // null: unset or empty
  void refuse(const char *name, const char *value, const std::string &takes);

  Lookup lookup_;
  std::string error_;
};

} // namespace rc

#endif
