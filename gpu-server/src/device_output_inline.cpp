// vprintf and putchar for device printf capture (device_output.cpp has the
// rest and says why). glibc's <stdio.h> defines both inline when
// optimizing (bits/stdio.h), and clang refuses to define them again where
// it is included: so this file does without it, declaring the little it
// needs, and forwards to the claimed vfprintf and putc.
#include <cstdarg>

extern "C" {

struct _IO_FILE;
extern struct _IO_FILE *stdout;
int vfprintf(struct _IO_FILE *stream, const char *format, va_list args);
int putc(int c, struct _IO_FILE *stream);

int vprintf(const char *format, va_list args) {
  return vfprintf(stdout, format, args);
}

int putchar(int c) { return putc(c, stdout); }

} // extern "C"
