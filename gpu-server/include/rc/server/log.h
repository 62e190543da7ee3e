// Minimal leveled logging to stderr, shared by all session threads.
#ifndef RC_SERVER_LOG_H
#define RC_SERVER_LOG_H

#include <string>

namespace rc::server {

enum class LogLevel { Quiet = 0, Info = 1, Debug = 2 };

void setLogLevel(LogLevel level);
LogLevel logLevel();
bool parseLogLevel(const std::string &text, LogLevel *out);

// One line, prefixed with "rc-server: "; whole lines never interleave.
void logInfo(const std::string &line);
void logDebug(const std::string &line);
// Errors are printed even when quiet: they explain why something stopped.
void logError(const std::string &line);

} // namespace rc::server

#endif
