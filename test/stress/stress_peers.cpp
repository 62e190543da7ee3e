// Peers that hold rc-server up without ever becoming clients, for
// hammer-latency.sh: while they run, a real client's connect and first
// call must not take longer (docs/server-internals/bounds.md, "Bounds").
//   stress_peers silent URL N SECONDS       N transport connections that
//                                           never send a message (or, to a
//                                           server with keys, N peers that
//                                           never answer its challenge)
//   stress_peers slow URL N SECONDS         N that send part of a message,
//                                           then 1 KiB every 0.5 s
//   stress_peers unreachable URL N SECONDS  (tcp) N connect requests a
//                                           second, naming an address that
//                                           never answers
//   stress_peers shm-idle URL N SECONDS     (shm) N handshake sockets that
//                                           send nothing
// A silent or slow peer, or an idle socket, is replaced as soon as the
// server has dropped it; connect requests go at N a second from one
// endpoint.
#include "raw_peer.h"
#include "unix_rendezvous.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <thread>

using rc::transport::test::RawPeer;
using Clock = std::chrono::steady_clock;
namespace detail = rc::transport::detail;

namespace {

// A local port whose connections complete in the kernel and hear nothing.
std::vector<uint8_t> silentTcpAddress(int *fd) {
  *fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(*fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
  listen(*fd, 1024);
  socklen_t len = sizeof a;
  getsockname(*fd, reinterpret_cast<sockaddr *>(&a), &len);
  return {reinterpret_cast<uint8_t *>(&a),
          reinterpret_cast<uint8_t *>(&a) + sizeof a};
}

std::unique_ptr<RawPeer> connectPeer(const std::string &url, bool slow) {
  auto p = std::make_unique<RawPeer>();
  std::string err;
  if (!p->connect(url, 3000, &err)) {
    std::fprintf(stderr, "stress_peers: %s\n", err.c_str());
    return nullptr;
  }
  if (slow) {
    std::vector<uint8_t> piece(4096, 0x41);
    p->sendFrame(detail::FrameType::Data, 0, 200 << 10, 0, piece.data(),
                 piece.size());
  }
  return p;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: stress_peers silent|slow|unreachable|shm-idle "
                         "URL N SECONDS\n");
    return 2;
  }
  std::string mode = argv[1], url = argv[2];
  int n = std::atoi(argv[3]);
  auto end = Clock::now() + std::chrono::seconds(std::atoi(argv[4]));
  std::string name = url.rfind("shm://", 0) == 0 ? url.substr(6) : "";
  int silentFd = -1;
  std::vector<uint8_t> silent;
  if (mode == "unreachable")
    silent = silentTcpAddress(&silentFd);
  std::deque<std::unique_ptr<RawPeer>> peers;
  std::deque<int> sockets;
  RawPeer requester;
  if (mode == "unreachable") {
    std::string err;
    if (!requester.openTowardsListener(url, &err)) {
      std::fprintf(stderr, "stress_peers: %s\n", err.c_str());
      return 1;
    }
  }
  uint64_t made = 0, offsets = 0, ticks = 0;
  while (Clock::now() < end) {
    auto tick = Clock::now();
    if (mode == "silent" || mode == "slow") {
      for (size_t i = 0; i < peers.size();)
        if (peers[i]->closedByServer())
          peers.erase(peers.begin() + long(i));
        else
          ++i;
      while (int(peers.size()) < n)
        if (auto p = connectPeer(url, mode == "slow"))
          peers.push_back(std::move(p)), ++made;
        else
          break;
      // A server with keys challenges instead of opening a connection
      // (admission): a challenged peer knocks again before its challenge
      // lapses (3 s), so that the server always has one out for it.
      if (mode == "silent" && ticks++ % 4 == 0)
        for (auto &p : peers)
          if (p->challenged())
            p->knockAgain();
      if (mode == "slow")
        for (auto &p : peers) {
          std::vector<uint8_t> more(1024, 0x42);
          p->sendFrame(detail::FrameType::Data, 0, 200 << 10,
                       4096 + (offsets++ % 100) * 1024, more.data(),
                       more.size());
        }
    } else if (mode == "unreachable") {
      if (++ticks % 2) // every other tick: N a second
        for (int i = 0; i < n; ++i)
          made += requester.connectRequest(silent);
    } else if (mode == "shm-idle") {
      for (size_t i = 0; i < sockets.size();) {
        char c;
        if (recv(sockets[i], &c, 1, MSG_DONTWAIT) == 0) { // closed by it
          close(sockets[i]);
          sockets.erase(sockets.begin() + long(i));
        } else {
          ++i;
        }
      }
      while (int(sockets.size()) < n) {
        std::string err;
        int fd = detail::unixConnect(name, &err);
        if (fd < 0)
          break;
        sockets.push_back(fd);
        ++made;
      }
    } else {
      std::fprintf(stderr, "stress_peers: unknown mode '%s'\n", mode.c_str());
      return 2;
    }
    std::this_thread::sleep_until(tick + std::chrono::milliseconds(500));
  }
  std::printf("stress_peers %s: %llu made\n", mode.c_str(),
              (unsigned long long)made);
  for (int fd : sockets)
    close(fd);
  if (silentFd >= 0)
    close(silentFd);
  return 0;
}
