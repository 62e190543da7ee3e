#include "metrics/metrics_file_writer.h"
#include "metrics/private_file.h"
#include "rc/server/log.h"

namespace rc::server {

MetricsFileWriter::MetricsFileWriter(const MetricsSource &board,
                                     std::string path)
    : board_(board), path_(std::move(path)) {}

MetricsFileWriter::~MetricsFileWriter() {
  if (!thread_.joinable())
    return; // never started: start() already reported why
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::string error;
  if (!writeNow(&error))
    logError(error);
}

bool MetricsFileWriter::start(std::string *error) {
  if (!writeNow(error))
    return false;
  thread_ = std::thread([this] { loop(); });
  return true;
}

void MetricsFileWriter::poke() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    poked_ = true;
  }
  wake_.notify_all();
}

bool MetricsFileWriter::writeNow(std::string *error) {
  // Read the change count first: a session that closes while we render is
  // then written again next time.
  uint64_t changes = board_.changeCount();
  std::string text = board_.json();
  std::lock_guard<std::mutex> lock(mutex_);
  std::string why;
  if (!replacePrivateFile(path_, text, &why)) {
    if (error)
      *error = "metrics file " + why;
    return false;
  }
  changesWritten_ = changes;
  return true;
}

void MetricsFileWriter::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kInterval, [this] { return stopping_ || poked_; });
    if (stopping_)
      break;
    poked_ = false;
    // Idle server, nothing new: leave the file (and the disk) alone.
    if (board_.liveCount() == 0 && board_.changeCount() == changesWritten_)
      continue;
    lock.unlock();
    std::string error;
    bool ok = writeNow(&error);
    lock.lock();
    if (!ok && error != lastError_)
      logError(error);
    lastError_ = ok ? "" : error;
  }
}

} // namespace rc::server
