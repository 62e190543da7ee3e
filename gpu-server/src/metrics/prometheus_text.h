// Prometheus' text exposition format (version 0.0.4), written by hand: no
// client library for C++ is packaged in Debian 12. Each metric family is a
// HELP and a TYPE line followed by its samples; label values are escaped
// as the format asks (backslash, double quote, newline), since tenant
// names and command types end up in them.
#ifndef RC_SERVER_PROMETHEUS_TEXT_H
#define RC_SERVER_PROMETHEUS_TEXT_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rc::server {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
public:
  // Starts a family: `type` is counter, gauge or histogram.
  void family(const std::string &name, const char *type, const char *help);
  // One sample of the current family; `name` is the family's, or for a
  // histogram's parts the family's with _bucket, _sum or _count.
  void sample(const std::string &name, const PromLabels &labels, double value);
  void sample(const std::string &name, const PromLabels &labels,
              uint64_t value);
  const std::string &text() const { return out_; }

  // The format's label value escaping, quotes not included.
  static std::string escapeLabelValue(const std::string &value);

private:
  void labels(const PromLabels &labels);
  std::string out_;
};

} // namespace rc::server

#endif
