#include "metrics/prometheus_text.h"

#include <cmath>
#include <cstdio>

namespace rc::server {

void PrometheusText::family(const std::string &name, const char *type,
                            const char *help) {
  out_ += "# HELP " + name + " " + help + "\n";
  out_ += "# TYPE " + name + " " + type + "\n";
}

std::string PrometheusText::escapeLabelValue(const std::string &value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void PrometheusText::labels(const PromLabels &labels) {
  if (labels.empty())
    return;
  out_ += '{';
  bool first = true;
  for (const auto &[name, value] : labels) {
    out_ += first ? "" : ",";
    first = false;
    out_ += name + "=\"" + escapeLabelValue(value) + "\"";
  }
  out_ += '}';
}

void PrometheusText::sample(const std::string &name, const PromLabels &l,
                            uint64_t value) {
  out_ += name;
  labels(l);
  out_ += ' ' + std::to_string(value) + '\n';
}

void PrometheusText::sample(const std::string &name, const PromLabels &l,
                            double value) {
  out_ += name;
  labels(l);
  char text[64];
  if (std::isinf(value))
    std::snprintf(text, sizeof text, value > 0 ? "+Inf" : "-Inf");
  else
    std::snprintf(text, sizeof text, "%.9g", value);
  out_ += ' ';
  out_ += text;
  out_ += '\n';
}

} // namespace rc::server
