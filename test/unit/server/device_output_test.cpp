// Device printf capture: what a thread writes to stdout with the printf
// family while it holds a DeviceOutputCapture is that sink's, and only
// that thread's writes are.
#include "rc/server/device_output.h"

#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <thread>

// The fortified forms a driver built with _FORTIFY_SOURCE calls.
extern "C" int __printf_chk(int flag, const char *format, ...);
extern "C" int __fprintf_chk(FILE *stream, int flag, const char *format, ...);

namespace {

using rc::server::DeviceOutput;
using rc::server::DeviceOutputCapture;

// As the CUDA driver writes: vfprintf to stdout. (A literal fprintf of
// "%s" would be compiled into fputs.)
void driverWrite(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vfprintf(stdout, format, args);
  va_end(args);
}

// A device printf as the driver prints it: one call per piece.
void printPieces(const char *tag, int n) {
  driverWrite("%s", tag);
  std::printf(" %d", n);
  std::fprintf(stdout, "%c%d", '\n', 0);
}

TEST(DeviceOutputTest, CapturesThisThreadsStdoutOnly) {
  DeviceOutput sink;
  {
    DeviceOutputCapture capture(&sink);
    printPieces("kernel", 7);
    std::fprintf(stderr, "%.0d", 0); // other streams are not captured
    std::string wide(3000, 'w');     // longer than the small buffer
    driverWrite("%s|", wide.c_str());
  }
  driverWrite("%s", ""); // after the scope: the real stdout
  std::string got = sink.take();
  EXPECT_EQ(got.substr(0, 10), "kernel 7\n0");
  EXPECT_EQ(got.size(), 10u + 3001u);
  EXPECT_EQ(got.back(), '|');
  EXPECT_TRUE(sink.empty());
}

// Not only the observed vfprintf: every stdio way into stdout is claimed, so
// a driver printing by another never sends a session's lines to rc-server's
// own stdout.
TEST(DeviceOutputTest, EveryStdioWayIntoStdoutIsCaptured) {
  DeviceOutput sink;
  {
    DeviceOutputCapture capture(&sink);
    std::fwrite("fw|", 1, 3, stdout);
    std::fputs("fs|", stdout);
    std::puts("ps");
    std::fputc('c', stdout);
    std::putc('p', stdout);
    std::putchar('|');
    __printf_chk(1, "%s|", "chk");
    __fprintf_chk(stdout, 1, "%d|", 7);
    std::fputs("", stderr); // other streams are not captured
  }
  EXPECT_EQ(sink.take(), "fw|fs|ps\ncp|chk|7|");
}

TEST(DeviceOutputTest, ConcurrentSessionsKeepTheirOwnOutput) {
  DeviceOutput a, b;
  auto run = [](DeviceOutput *sink, const char *tag) {
    DeviceOutputCapture capture(sink);
    for (int i = 0; i < 200; ++i)
      printPieces(tag, i);
  };
  std::thread ta(run, &a, "A"), tb(run, &b, "B");
  ta.join();
  tb.join();
  std::string ga = a.take(), gb = b.take();
  EXPECT_EQ(ga.find('B'), std::string::npos);
  EXPECT_EQ(gb.find('A'), std::string::npos);
  EXPECT_EQ(ga.substr(0, 5), "A 0\n0");
  EXPECT_NE(ga.find("A 199\n0"), std::string::npos);
  EXPECT_NE(gb.find("B 199\n0"), std::string::npos);
}

TEST(DeviceOutputTest, InnerCaptureWinsAndEndsWithItsScope) {
  DeviceOutput outer, inner;
  {
    DeviceOutputCapture o(&outer);
    printPieces("outer", 1);
    {
      DeviceOutputCapture i(&inner);
      printPieces("inner", 2);
    }
    printPieces("outer", 3);
  }
  EXPECT_EQ(outer.take(), "outer 1\n0outer 3\n0");
  EXPECT_EQ(inner.take(), "inner 2\n0");
}

TEST(DeviceOutputTest, KeepsAtMostItsLimitAndSaysWhatItDropped) {
  DeviceOutput sink(16);
  {
    DeviceOutputCapture capture(&sink);
    for (int i = 0; i < 5; ++i)
      driverWrite("%s", "12345678");
  }
  std::string got = sink.take();
  EXPECT_EQ(got.substr(0, 17), "1234567812345678\n");
  EXPECT_NE(got.find("24 bytes of device printf output dropped"),
            std::string::npos)
      << got;
  EXPECT_TRUE(sink.empty());
  sink.append("ok", 2);
  EXPECT_EQ(sink.take(), "ok") << "a new reply starts a new budget";
}

} // namespace
