// What a session's kernels print (device printf), for its client.
//
// The CUDA driver writes the device printf buffer to the process's stdout,
// one vfprintf per piece of the format, when the context next launches,
// synchronizes or copies, on the thread that made that call (observed with
// driver 580 / CUDA 13; docs/server-internals/sessions.md "Device printf").
// rc-server runs each session's commands on that session's thread, so while a
// DeviceOutputCapture lives on a thread, formatted writes to stdout from
// that thread land in its DeviceOutput instead of the server's stdout, and
// the session sends them to its client with the next reply. Nothing
// serializes sessions: the capture is per thread.
#ifndef RC_SERVER_DEVICE_OUTPUT_H
#define RC_SERVER_DEVICE_OUTPUT_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace rc::server {

// Text waiting for the next reply, bounded: a client that prints without
// ever synchronizing cannot make the server hold unbounded memory.
class DeviceOutput {
public:
  // CUDA's printf buffer is 1 MiB by default (cudaLimitPrintfFifoSize);
  // four of them between two replies is plenty.
  static constexpr size_t kDefaultLimit = size_t(4) << 20;
  explicit DeviceOutput(size_t limit = kDefaultLimit) : limit_(limit) {}
  void append(const char *data, size_t size);
  bool empty() const { return text_.empty() && dropped_ == 0; }
  // Everything since the last take, with a line saying how much was
  // dropped, if any.
  std::string take();

private:
  size_t limit_;
  std::string text_;
  uint64_t dropped_ = 0;
};

// Claims the calling thread's formatted writes to stdout for `sink` while
// it lives. Scopes nest (the innermost sink wins).
class DeviceOutputCapture {
public:
  explicit DeviceOutputCapture(DeviceOutput *sink);
  ~DeviceOutputCapture();
  DeviceOutputCapture(const DeviceOutputCapture &) = delete;
  DeviceOutputCapture &operator=(const DeviceOutputCapture &) = delete;

private:
  DeviceOutput *previous_;
};

} // namespace rc::server

#endif
