#include "rc/server/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace rc::server {

namespace {
std::atomic<int> gLevel{int(LogLevel::Info)};
std::mutex gMutex;
std::string gName = "rc-server"; // set before any thread logs

void emit(const std::string &line) {
  std::lock_guard<std::mutex> lock(gMutex);
  std::fprintf(stderr, "%s: %s\n", gName.c_str(), line.c_str());
  std::fflush(stderr);
}
} // namespace

void setLogLevel(LogLevel level) { gLevel = int(level); }
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

void logInfo(const std::string &line) {
  if (gLevel >= int(LogLevel::Info))
    emit(line);
}
void logDebug(const std::string &line) {
  if (gLevel >= int(LogLevel::Debug))
    emit(line);
}
void logError(const std::string &line) { emit(line); }

} // namespace rc::server
