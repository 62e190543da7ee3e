#include "rc/server/log.h"
#include "metrics/metrics_json.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace rc::server {

namespace {
// LogLevel::Quiet is what an error is logged at: printed whatever the level.
constexpr LogLevel kErrorLevel = LogLevel::Quiet;

std::atomic<int> gLevel{int(LogLevel::Info)};
std::atomic<int> gFormat{int(LogFormat::KeyValue)};
std::mutex gMutex;
std::string gName = "rc-server"; // set before any thread logs

const char *levelName(LogLevel level) {
  switch (level) {
  case LogLevel::Quiet:
    return "error";
  case LogLevel::Info:
    return "info";
  case LogLevel::Debug:
    return "debug";
  }
  return "info";
}

std::string utcTime(uint64_t unixMs) {
  time_t seconds = time_t(unixMs / 1000);
  struct tm tm{};
  gmtime_r(&seconds, &tm);
  char text[40];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, unsigned(unixMs % 1000));
  return text;
}

// A key=value value: bare when it is one plain word, else quoted with
// backslash escapes, so that a parser splits every line the same way.
void appendValue(std::string &out, const std::string &value) {
  bool bare = !value.empty();
  for (unsigned char c : value)
    bare = bare && (std::isalnum(c) ||
                    std::string("._:/@+-,").find(char(c)) != std::string::npos);
  if (bare) {
    out += value;
    return;
  }
  out += '"';
  for (unsigned char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

uint64_t unixMsNow() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}
} // namespace

void setLogLevel(LogLevel level) { gLevel = int(level); }
void setLogFormat(LogFormat format) { gFormat = int(format); }
void setLogName(const std::string &name) {
  std::lock_guard<std::mutex> lock(gMutex);
  gName = name;
}
LogLevel logLevel() { return LogLevel(gLevel.load()); }

bool parseLogLevel(const std::string &text, LogLevel *out) {
  if (text == "quiet")
    *out = LogLevel::Quiet;
  else if (text == "info")
    *out = LogLevel::Info;
  else if (text == "debug")
    *out = LogLevel::Debug;
  else
    return false;
  return true;
}

bool parseLogFormat(const std::string &text, LogFormat *out) {
  if (text == "text")
    *out = LogFormat::KeyValue;
  else if (text == "json")
    *out = LogFormat::Json;
  else
    return false;
  return true;
}

std::string formatLogLine(LogFormat format, LogLevel level,
                          const LogEvent &what, const std::string &message,
                          uint64_t unixMs) {
  std::string name;
  {
    std::lock_guard<std::mutex> lock(gMutex);
    name = gName;
  }
  const std::string pid = std::to_string(getpid());
  std::string out;
  if (format == LogFormat::Json) {
    out = "{\"time\":\"" + utcTime(unixMs) + "\",\"level\":\"" +
          levelName(level) + "\",\"proc\":";
    appendJsonString(out, name);
    out += ",\"pid\":" + pid + ",\"event\":";
    appendJsonString(out, what.event);
    if (what.session)
      out += ",\"session\":" + std::to_string(what.session);
    if (!what.tenant.empty()) {
      out += ",\"tenant\":";
      appendJsonString(out, what.tenant);
    }
    out += ",\"msg\":";
    appendJsonString(out, message);
    return out + "}";
  }
  out = "time=" + utcTime(unixMs) + " level=" + levelName(level) + " proc=";
  appendValue(out, name);
  out += " pid=" + pid + " event=";
  appendValue(out, what.event);
  if (what.session)
    out += " session=" + std::to_string(what.session);
  if (!what.tenant.empty()) {
    out += " tenant=";
    appendValue(out, what.tenant);
  }
  out += " msg=";
  appendValue(out, message);
  return out;
}

void logAt(LogLevel level, const LogEvent &what, const std::string &message) {
  if (level != kErrorLevel && gLevel < int(level))
    return;
  std::string line = formatLogLine(LogFormat(gFormat.load()), level, what,
                                   message, unixMsNow());
  std::lock_guard<std::mutex> lock(gMutex);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void logInfo(const LogEvent &what, const std::string &message) {
  logAt(LogLevel::Info, what, message);
}
void logDebug(const LogEvent &what, const std::string &message) {
  logAt(LogLevel::Debug, what, message);
}
void logError(const LogEvent &what, const std::string &message) {
  logAt(kErrorLevel, what, message);
}
void logInfo(const std::string &message) { logInfo(LogEvent{}, message); }
void logDebug(const std::string &message) { logDebug(LogEvent{}, message); }
void logError(const std::string &message) { logError(LogEvent{}, message); }

} // namespace rc::server
