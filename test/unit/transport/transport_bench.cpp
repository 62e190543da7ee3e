// rc_transport_bench: round-trip latency and throughput between two
// processes (fork), over tcp and shm. Not a test: numbers for the docs and
// for comparing design choices.
// Usage: rc_transport_bench [tcp|shm] [iters] [reply_delay_us]
// With a reply delay the echo server busy-waits that long before answering
// (like a GPU step) and only 8-byte round trips are timed: what the waiting
// side adds on top of the delay is the cost of its wait policy (spin, yield,
// sleep), which an immediate echo never reaches.
#include "rc/transport.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace rc::transport;
using Clock = std::chrono::steady_clock;

static void busyWaitUs(int us) {
  auto until = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < until) {
  }
}

static void serve(Listener *l, int replyDelayUs) {
  auto c = l->accept(10000);
  if (!c)
    _exit(3);
  std::vector<uint8_t> m;
  for (;;) {
    Status s = c->recv(m, 20000);
    if (s != Status::Ok)
      break;
    if (replyDelayUs > 0)
      busyWaitUs(replyDelayUs);
    if (c->send(m.data(), m.size()) != Status::Ok)
      break;
  }
}

// 8-byte round trips against a server that answers after replyDelayUs.
static int delayedRoundTrips(Connection &c, int iters, int replyDelayUs) {
  uint64_t msg = 1;
  std::vector<uint8_t> got;
  std::vector<double> us;
  for (int i = 0; i < iters + 10; ++i) {
    auto t = Clock::now();
    if (c.send(&msg, sizeof msg) != Status::Ok ||
        c.recv(got, 10000) != Status::Ok) {
      std::fprintf(stderr, "failed: %s\n", c.lastError().c_str());
      return 1;
    }
    if (i >= 10) // warm-up excluded
      us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  std::sort(us.begin(), us.end());
  double median = us[us.size() / 2];
  std::printf("round trip      8 B, reply after %d us: median %9.2f us "
              "(wait adds %7.2f us)  p99 %9.2f us\n",
              replyDelayUs, median, median - replyDelayUs,
              us[us.size() * 99 / 100]);
  return 0;
}

int main(int argc, char **argv) {
  std::string scheme = argc > 1 ? argv[1] : "tcp";
  int iters = argc > 2 ? std::atoi(argv[2]) : 20000;
  int replyDelayUs = argc > 3 ? std::atoi(argv[3]) : 0;
  std::string url = scheme == "tcp"
                        ? "tcp://127.0.0.1:0"
                        : "shm://rcbench_" + std::to_string(getpid());
  std::string err;
  auto l = listen(url, &err);
  if (!l) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::string addr = l->address();
  pid_t child = fork();
  if (child == 0) {
    serve(l.get(), replyDelayUs);
    _exit(0);
  }
  auto c = connect(addr, 10000, &err);
  if (!c) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::printf("%s (%s)\n", addr.c_str(), c->peerDescription().c_str());
  std::vector<uint8_t> got;
  if (replyDelayUs > 0) {
    int rc = delayedRoundTrips(*c, iters, replyDelayUs);
    c.reset(); // the server's recv sees Close and it exits
    waitpid(child, nullptr, 0);
    return rc;
  }
  for (size_t size : {size_t(8), size_t(256), size_t(4096), size_t(16384),
                      size_t(65536), size_t(262144)}) {
    std::vector<uint8_t> msg(size, 1);
    std::vector<double> us;
    int n = size >= 65536 ? iters / 10 : iters;
    for (int i = 0; i < n + 100; ++i) {
      auto t = Clock::now();
      if (c->send(msg.data(), msg.size()) != Status::Ok ||
          c->recv(got, 10000) != Status::Ok) {
        std::fprintf(stderr, "failed: %s\n", c->lastError().c_str());
        return 1;
      }
      if (i >= 100) // warm-up excluded
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t)
                         .count());
    }
    std::sort(us.begin(), us.end());
    std::printf("round trip %6zu B: median %7.2f us  p99 %7.2f us\n", size,
                us[us.size() / 2], us[us.size() * 99 / 100]);
  }
  for (size_t size : {size_t(1) << 20, size_t(32) << 20}) {
    std::vector<uint8_t> msg(size, 2);
    int n = size > (1u << 20) ? 10 : 100;
    auto t = Clock::now();
    for (int i = 0; i < n; ++i)
      if (c->send(msg.data(), msg.size()) != Status::Ok ||
          c->recv(got, 30000) != Status::Ok) {
        std::fprintf(stderr, "failed: %s\n", c->lastError().c_str());
        return 1;
      }
    double s = std::chrono::duration<double>(Clock::now() - t).count();
    std::printf("echo %5zu MiB: %7.2f ms per round trip, %.2f GB/s each way\n",
                size >> 20, s * 1000 / n, double(size) * n / s / 1e9);
  }
  {
    std::ifstream st("/proc/self/status");
    std::string line;
    while (std::getline(st, line))
      if (line.rfind("VmHWM", 0) == 0 || line.rfind("VmRSS", 0) == 0)
        std::printf("client %s\n", line.c_str());
  }
  c.reset();
  int status = 0;
  waitpid(child, &status, 0);
  return 0;
}
