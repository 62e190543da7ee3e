// rc_transport_bench: round-trip latency and throughput between two
// processes (fork), over tcp and shm. Not a test: numbers for the docs and
// for comparing design choices.
// Usage: rc_transport_bench [tcp|shm] [iters] [reply_delay_us]
//        rc_transport_bench [tcp|shm] readback [bytes] [iters]
// With a reply delay the echo server busy-waits that long before answering
// (like a GPU step) and only 8-byte round trips are timed: what the waiting
// side adds on top of the delay is the cost of its wait policy (spin, yield,
// sleep), which an immediate echo never reaches.
// `readback` times what a large device-to-host copy costs on the link: the
// client asks (one small message), the server writes `bytes` into the
// client's exposed buffer by RMA and answers (rc-server's read-back path, as
// llama.cpp's logits take it: 525312 bytes a 1B token). For tcp it also times
// the same bytes over a plain loopback socket, the kernel's own ceiling.
// RC_BENCH_SEAL=1 seals the connection (both ends, fixed keys) before the
// first message: every number then includes the record layer (docs/
// transport.md, "Sealing"; docs/design/transport-encryption.md).
#include "rc/transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace rc::transport;
using Clock = std::chrono::steady_clock;

// RC_BENCH_SEAL=1: the keys each side seals with (the client's send key is
// the server's receive key), fixed: a benchmark, not a secret.
static bool sealing() {
  const char *v = std::getenv("RC_BENCH_SEAL");
  return v && std::string(v) == "1";
}
static bool sealAs(Connection &c, bool server) {
  TrafficKey a, b;
  a.key.fill(0x11), a.iv.fill(0x22), b.key.fill(0x33), b.iv.fill(0x44);
  SealKeys keys = server ? SealKeys{b, a} : SealKeys{a, b};
  std::string err;
  if (!c.seal(keys, false, &err)) {
    std::fprintf(stderr, "cannot seal: %s\n", err.c_str());
    return false;
  }
  return true;
}

static void busyWaitUs(int us) {
  auto until = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < until) {
  }
}

// A read-back request: the bytes to write and where.
struct ReadbackRequest {
  uint64_t magic;
  uint64_t size;
  RemoteRegion dst;
};
// "readback" in ASCII, read as a little-endian word.
constexpr uint64_t kReadbackMagic = 0x6b63616264616572ull;

static bool isReadbackRequest(const std::vector<uint8_t> &m,
                              ReadbackRequest *req) {
  if (m.size() != sizeof *req)
    return false;
  std::memcpy(req, m.data(), sizeof *req);
  return req->magic == kReadbackMagic;
}

static void serve(Listener *l, int replyDelayUs) {
  auto c = l->accept(10000);
  if (!c || (sealing() && !sealAs(*c, true)))
    _exit(3);
  std::vector<uint8_t> m;
  std::vector<uint8_t> source;
  for (;;) {
    Status s = c->recv(m, 20000);
    if (s != Status::Ok)
      break;
    ReadbackRequest req;
    if (isReadbackRequest(m, &req)) {
      source.resize(req.size, 7);
      uint8_t ok =
          c->writeRemote(source.data(), source.size(), req.dst) == Status::Ok;
      if (c->send(&ok, 1) != Status::Ok)
        break;
      continue;
    }
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

// Runs `once` 10 times to warm up, then `iters` times, and returns the
// median of the timed runs in microseconds; < 0 if a run failed.
static double medianUs(int iters, const std::function<bool()> &once) {
  std::vector<double> us;
  for (int i = 0; i < iters + 10; ++i) {
    auto t = Clock::now();
    if (!once())
      return -1;
    if (i >= 10)
      us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

// Read-backs of `size` bytes by RMA, as rc-server answers a large D2H copy.
static int readbacks(Connection &c, size_t size, int iters) {
  std::vector<uint8_t> dst(size);
  ReadbackRequest req{kReadbackMagic, size, {}};
  if (!c.exposeForWrite(dst.data(), dst.size(), &req.dst)) {
    std::fprintf(stderr, "cannot expose memory: %s\n", c.lastError().c_str());
    return 1;
  }
  std::vector<uint8_t> got;
  double m = medianUs(iters, [&] {
    return c.send(&req, sizeof req) == Status::Ok &&
           c.recv(got, 10000) == Status::Ok && got.size() == 1 && got[0];
  });
  if (m < 0) {
    std::fprintf(stderr, "read-back failed: %s\n", c.lastError().c_str());
    return 1;
  }
  if (dst[0] != 7 || dst[size - 1] != 7) {
    std::fprintf(stderr, "read-back: the bytes did not arrive\n");
    return 1;
  }
  std::printf("read-back by RMA %8zu B: median %8.2f us (%.2f GB/s with the "
              "request and answer)\n",
              size, m, double(size) / m / 1e3);
  return 0;
}

// The same bytes one way over a plain loopback TCP socket (request byte up,
// `size` bytes down): what the kernel alone costs, without libfabric.
static int rawSocketReadbacks(size_t size, int iters) {
  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (lfd < 0 || bind(lfd, reinterpret_cast<sockaddr *>(&a), sizeof a) ||
      listen(lfd, 1) ||
      getsockname(lfd, reinterpret_cast<sockaddr *>(&a), &len)) {
    std::perror("raw socket");
    return 1;
  }
  auto full = [](int fd, void *p, size_t n, bool out) {
    auto *b = static_cast<uint8_t *>(p);
    while (n) {
      ssize_t k = out ? send(fd, b, n, MSG_NOSIGNAL) : recv(fd, b, n, 0);
      if (k <= 0)
        return false;
      b += k, n -= size_t(k);
    }
    return true;
  };
  pid_t child = fork();
  if (child == 0) {
    int fd = accept(lfd, nullptr, nullptr);
    std::vector<uint8_t> src(size, 7);
    uint8_t ask;
    while (fd >= 0 && full(fd, &ask, 1, false) &&
           full(fd, src.data(), size, true)) {
    }
    _exit(0);
  }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::vector<uint8_t> dst(size);
  uint8_t ask = 1;
  double m = -1;
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a)) {
    std::perror("raw socket connect");
  } else {
    m = medianUs(iters, [&] {
      return full(fd, &ask, 1, true) && full(fd, dst.data(), size, false);
    });
    if (m < 0)
      std::perror("raw socket read-back");
  }
  close(fd); // the child's next read sees the end and it exits
  close(lfd);
  if (m < 0)
    kill(child, SIGKILL); // it may still wait in accept
  waitpid(child, nullptr, 0);
  if (m < 0)
    return 1;
  std::printf("plain tcp socket %8zu B: median %8.2f us (%.2f GB/s with the "
              "request)\n",
              size, m, double(size) / m / 1e3);
  return 0;
}

int main(int argc, char **argv) {
  std::string scheme = argc > 1 ? argv[1] : "tcp";
  bool readback = argc > 2 && std::string(argv[2]) == "readback";
  size_t readbackBytes =
      readback && argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 525312;
  int iters = readback ? (argc > 4 ? std::atoi(argv[4]) : 2000)
                       : (argc > 2 ? std::atoi(argv[2]) : 20000);
  int replyDelayUs = !readback && argc > 3 ? std::atoi(argv[3]) : 0;
  if (readback && (readbackBytes == 0 || iters <= 0)) {
    std::fprintf(stderr, "readback needs bytes > 0 and iters > 0\n");
    return 2;
  }
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
  if (sealing() && !sealAs(*c, false))
    return 1;
  std::printf("%s (%s)%s\n", addr.c_str(), c->peerDescription().c_str(),
              sealing() ? ", sealed" : "");
  std::vector<uint8_t> got;
  if (readback) {
    int rc = readbacks(*c, readbackBytes, iters);
    c.reset();
    waitpid(child, nullptr, 0);
    if (rc == 0 && scheme == "tcp")
      rc = rawSocketReadbacks(readbackBytes, iters);
    return rc;
  }
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
