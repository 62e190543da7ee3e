// The libc functions the CUDA driver prints device output with, interposed:
// rc-server's executable defines and exports them (device_output.list is
// the linker's dynamic list), so libcuda's calls bind here before libc.
// Observed: vfprintf per piece of the format, then fflush. Every other
// stdio way into stdout is claimed too (the fortified __*printf_chk,
// fwrite, fputs, puts, fputc, putc, putchar): a driver that wrote by any of
// them would otherwise send a session's lines to rc-server's own stdout,
// where no client sees them. (write(2) is left alone: descriptor 1 may be
// another file than stdout's, say a socket where rc-server was started with
// stdout closed.) Without a capture on the calling thread each forwards to
// the next definition (libc's, or a sanitizer's), unchanged.
#include "rc/server/device_output.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace rc::server {

namespace {

thread_local DeviceOutput *tSink = nullptr;

// The next definition of `name` (libc's, or a sanitizer's interceptor).
template <class Fn> Fn next(const char *name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}
#define RC_NEXT(fn) next<decltype(&::fn)>(#fn)

using VfprintfFn = int (*)(FILE *, const char *, va_list);

VfprintfFn nextVfprintf() {
  static const VfprintfFn fn = next<VfprintfFn>("vfprintf");
  return fn;
}

// The sink that claims writes to `stream` on this thread, or null.
DeviceOutput *sinkFor(FILE *stream) {
  return tSink && stream == stdout ? tSink : nullptr;
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

using rc::server::captureFormatted;
using rc::server::next;
using rc::server::nextVfprintf;
using rc::server::sinkFor;

extern "C" {

// The driver's own (fortified) prototypes of these are not declared
// without _FORTIFY_SOURCE.
int __printf_chk(int flag, const char *format, ...);
int __fprintf_chk(FILE *stream, int flag, const char *format, ...);
int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list args);
int __vprintf_chk(int flag, const char *format, va_list args);

int vfprintf(FILE *stream, const char *format, va_list args) {
  if (rc::server::DeviceOutput *sink = sinkFor(stream))
    return captureFormatted(sink, format, args);
  return nextVfprintf()(stream, format, args);
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

int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list args) {
  if (rc::server::DeviceOutput *sink = sinkFor(stream))
    return captureFormatted(sink, format, args);
  static const auto fn = RC_NEXT(__vfprintf_chk);
  return fn(stream, flag, format, args);
}

int __vprintf_chk(int flag, const char *format, va_list args) {
  return __vfprintf_chk(stdout, flag, format, args);
}

int __fprintf_chk(FILE *stream, int flag, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = __vfprintf_chk(stream, flag, format, args);
  va_end(args);
  return n;
}

int __printf_chk(int flag, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = __vfprintf_chk(stdout, flag, format, args);
  va_end(args);
  return n;
}

size_t fwrite(const void *data, size_t size, size_t count, FILE *stream) {
  if (rc::server::DeviceOutput *sink = sinkFor(stream)) {
    sink->append(static_cast<const char *>(data), size * count);
    return count;
  }
  static const auto fn = RC_NEXT(fwrite);
  return fn(data, size, count, stream);
}

int fputs(const char *text, FILE *stream) {
  if (rc::server::DeviceOutput *sink = sinkFor(stream)) {
    sink->append(text, std::strlen(text));
    return 1;
  }
  static const auto fn = RC_NEXT(fputs);
  return fn(text, stream);
}

int puts(const char *text) {
  if (rc::server::DeviceOutput *sink = sinkFor(stdout)) {
    sink->append(text, std::strlen(text));
    sink->append("\n", 1);
    return 1;
  }
  static const auto fn = RC_NEXT(puts);
  return fn(text);
}

int fputc(int c, FILE *stream) {
  if (rc::server::DeviceOutput *sink = sinkFor(stream)) {
    char ch = char(c);
    sink->append(&ch, 1);
    return (unsigned char)c;
  }
  static const auto fn = RC_NEXT(fputc);
  return fn(c, stream);
}

int putc(int c, FILE *stream) {
  if (sinkFor(stream))
    return fputc(c, stream);
  static const auto fn = RC_NEXT(putc);
  return fn(c, stream);
}

} // extern "C"
