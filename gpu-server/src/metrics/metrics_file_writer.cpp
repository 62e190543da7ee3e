#include "metrics/metrics_file_writer.h"
#include "rc/server/log.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rc::server {

MetricsFileWriter::MetricsFileWriter(const MetricsSource &board,
                                     std::string path)
    : board_(board), path_(std::move(path)),
      tempPath_(path_ + ".tmp." + std::to_string(getpid())) {}

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
  auto fail = [&](const char *step) {
    if (error)
      *error = "metrics file " + path_ + ": " + step + " " + tempPath_ + ": " +
               std::strerror(errno);
    std::remove(tempPath_.c_str());
    return false;
  };
  FILE *f = std::fopen(tempPath_.c_str(), "w");
  if (!f)
    return fail("cannot create");
  bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !written)
    return fail("cannot write");
  if (std::rename(tempPath_.c_str(), path_.c_str()) != 0)
    return fail("cannot rename");
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
