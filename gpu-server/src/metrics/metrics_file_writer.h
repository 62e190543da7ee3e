// Keeps `rc-server --metrics FILE` current: rewrites it about once a second
// while sessions are live and soon after one closes. Each write replaces
// the whole file, mode 0600, and only a regular file (private_file.h): it
// lists every tenant's sessions, for the operator alone.
#ifndef RC_SERVER_METRICS_FILE_WRITER_H
#define RC_SERVER_METRICS_FILE_WRITER_H

#include "rc/server/metrics_board.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace rc::server {

class MetricsFileWriter {
public:
  MetricsFileWriter(const MetricsSource &board, std::string path);
  ~MetricsFileWriter(); // writes a last time and stops the thread

  // Writes the file once (so a bad path fails start-up, not silently
  // later) and starts the periodic writer.
  bool start(std::string *error);
  // A session closed: write without waiting for the next tick.
  void poke();
  // One atomic rewrite now.
  bool writeNow(std::string *error);

private:
  void loop();

  static constexpr std::chrono::milliseconds kInterval{1000};
  const MetricsSource &board_;
  std::string path_;
  std::mutex mutex_; // guards the flags below and serialises writes
  std::condition_variable wake_;
  bool poked_ = false;
  bool stopping_ = false;
  uint64_t changesWritten_ = 0;
  std::string lastError_; // logged once, not every second
  std::thread thread_;
};

} // namespace rc::server

#endif
