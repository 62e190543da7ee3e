// The libc functions the CUDA driver prints device output with, interposed:
// rc-server's executable defines them and exports them (device_output.list
// is the linker's dynamic list), so libcuda's calls bind here before libc.
// Without a capture on the calling thread each forwards to the next
// definition (libc's, or a sanitizer's), unchanged.
#undef _FORTIFY_SOURCE // its inline fprintf/printf would clash with ours
#include "rc/server/device_output.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace rc::server {

namespace {

thread_local DeviceOutput *tSink = nullptr;

using VfprintfFn = int (*)(FILE *, const char *, va_list);

VfprintfFn nextVfprintf() {
  static const VfprintfFn next =
      reinterpret_cast<VfprintfFn>(dlsym(RTLD_NEXT, "vfprintf"));
  return next;
}

int captureFormatted(DeviceOutput *sink, const char *format, va_list args) {
  char small[512];
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(small, sizeof small, format, copy);
  va_end(copy);
  if (n < 0)
    return n;
  if (size_t(n) < sizeof small) {
    sink->append(small, size_t(n));
    return n;
  }
  std::string big(size_t(n) + 1, '\0');
  std::vsnprintf(big.data(), big.size(), format, args);
  sink->append(big.data(), size_t(n));
  return n;
}

} // namespace

void DeviceOutput::append(const char *data, size_t size) {
  size_t room = limit_ - std::min(limit_, text_.size());
  size_t kept = std::min(room, size);
  text_.append(data, kept);
  dropped_ += size - kept;
}

std::string DeviceOutput::take() {
  std::string out;
  out.swap(text_);
  if (dropped_) {
    if (!out.empty() && out.back() != '\n')
      out += '\n';
    out += "[rc-server: " + std::to_string(dropped_) +
           " bytes of device printf output dropped: more than " +
           std::to_string(limit_) + " bytes between two replies]\n";
    dropped_ = 0;
  }
  return out;
}

DeviceOutputCapture::DeviceOutputCapture(DeviceOutput *sink)
    : previous_(tSink) {
  tSink = sink;
}

DeviceOutputCapture::~DeviceOutputCapture() { tSink = previous_; }

} // namespace rc::server

using rc::server::tSink;

extern "C" {

int vfprintf(FILE *stream, const char *format, va_list args) {
  if (tSink && stream == stdout)
    return rc::server::captureFormatted(tSink, format, args);
  return rc::server::nextVfprintf()(stream, format, args);
}

int fprintf(FILE *stream, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vfprintf(stream, format, args);
  va_end(args);
  return n;
}

int printf(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vfprintf(stdout, format, args);
  va_end(args);
  return n;
}

} // extern "C"
