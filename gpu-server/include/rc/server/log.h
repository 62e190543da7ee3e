// Minimal leveled logging to stderr, shared by all session threads.
#ifndef RC_SERVER_LOG_H
#define RC_SERVER_LOG_H

#include <string>

namespace rc::server {

enum class LogLevel { Quiet = 0, Info = 1, Debug = 2 };

void setLogLevel(LogLevel level);
LogLevel logLevel();
bool parseLogLevel(const std::string &text, LogLevel *out);
// What each line starts with ("rc-server"; a worker process of
// --isolation process: "rc-server worker PID").
void setLogName(const std::string &name);

// One line, prefixed with the log name and ": "; whole lines never interleave.
void logInfo(const std::string &line);
void logDebug(const std::string &line);
// Errors are printed even when quiet: they explain why something stopped.
void logError(const std::string &line);

} // namespace rc::server

#endif
