// One session cannot reach another's memory, nor the server's, through the
// transport's RMA (rc-server --test-device in a process of its own, over
// tcp and shm). An attacker speaks the transport directly and writes with
// forged addresses and keys: into the victim's upload ring with the
// victim's own address and key, just before and after its own ring, and at
// arbitrary addresses. The victim's bytes must stay as they were and the
// server must live on (a write just before a ring used to corrupt the
// allocator's header: "free(): invalid pointer" when the session ended).
// And no process may write the server's memory behind the transport's
// back: rc-server is not dumpable.
#include "process_util.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>

using namespace rc::server::test;
using rc::transport::Connection;
using rc::transport::RemoteRegion;
using rc::transport::Status;

namespace {

constexpr uint64_t kRing = 1 << 20;
constexpr size_t kMarked = 64 << 10;

Bytes marker(uint8_t seed, size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i)
    b[i] = uint8_t(seed + i * 13 + (i >> 10));
  return b;
}

// A session with an upload ring, spoken to over the transport directly.
struct Client {
  std::unique_ptr<Connection> conn;
  RemoteRegion ring;               // by RMA (tcp)
  std::shared_ptr<uint8_t> mapped; // the ring's file (shm)

  bool open(const std::string &url, uint64_t hash) {
    std::string err;
    // The server's first connection loads libfabric's providers: seconds
    // on a loaded machine.
    conn = rc::transport::connect(url, 20000, &err);
    if (!conn) {
      ADD_FAILURE() << err;
      return false;
    }
    Bytes reply = roundTrip(*conn, hello({hash}, 1, kRing), 10000);
    const wire::HelloReply *hr = asHelloReply(reply);
    if (!hr || !hr->ok() || !hr->upload_ring() ||
        hr->upload_ring()->size() != kRing) {
      ADD_FAILURE() << "no session with a " << kRing << "-byte ring";
      return false;
    }
    const wire::RemoteMemory &r = *hr->upload_ring();
    ring = {r.addr(), r.key()};
    if (r.file() && r.file()->size())
      mapped = mapServerFile(r.file()->str(), kRing);
    return true;
  }
  // Writes into the ring as an honest client does.
  bool fill(const Bytes &bytes) {
    if (mapped) {
      std::memcpy(mapped.get(), bytes.data(), bytes.size());
      return true;
    }
    return conn->writeRemote(bytes.data(), bytes.size(), ring) == Status::Ok;
  }
  // What the ring holds, as the server sees it: copied to the device and
  // read back.
  Bytes ringBytes(size_t n) {
    Bytes r = roundTrip(*conn, batch(1, {cMalloc(n)}), 10000);
    uint64_t dev = resultAt(asBatchReply(r), 0)->addr();
    r = roundTrip(*conn,
                  batch(2, {cH2DRing(dev, 0, n, n), cD2H(dev, n), cFree(dev)}),
                  10000);
    const wire::Result *res = resultAt(asBatchReply(r), 1);
    if (!res || !res->payload())
      return {};
    return Bytes(res->payload()->begin(), res->payload()->end());
  }
};

class IsolationTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    m = writeTestManifest();
    url = GetParam() == "tcp"
              ? "tcp://127.0.0.1:" + std::to_string(freePort())
              : "shm://rc-isolation-" + std::to_string(getpid());
    server = std::make_unique<Child>(std::vector<std::string>{
        "--test-device", "--listen", url, "--manifest", m.path});
    ASSERT_TRUE(server->waitFor("listening on", 20000)) << server->text;
  }
  bool serverAlive() { return waitpid(server->pid, nullptr, WNOHANG) == 0; }

  TestManifest m;
  std::string url;
  std::unique_ptr<Child> server;
};

TEST_P(IsolationTest, ForgedRmaWritesReachNeitherAnotherSessionNorTheServer) {
  Client victim;
  ASSERT_TRUE(victim.open(url, m.hash));
  Bytes mark = marker(7, kMarked);
  ASSERT_TRUE(victim.fill(mark)) << victim.conn->lastError();
  EXPECT_EQ(bool(victim.mapped), GetParam() == "shm")
      << "over shm the ring is a file, over tcp memory exposed to RMA";

  // Each attack on a connection of its own (over tcp the provider ends the
  // connection of a peer whose write it refuses), all at once.
  struct Attack {
    const char *what;
    std::function<RemoteRegion(const Client &self)> target;
    size_t size;
  };
  const RemoteRegion v = victim.ring;
  const std::vector<Attack> attacks = {
      {"the victim's ring with the victim's key",
       [&](const Client &) { return v; }, 4096},
      {"the victim's ring address with its own key",
       [&](const Client &a) { return RemoteRegion{v.addr, a.ring.key}; }, 64},
      {"just before its own ring",
       [](const Client &a) {
         return RemoteRegion{a.ring.addr - 16, a.ring.key};
       },
       64},
      {"just after its own ring",
       [](const Client &a) {
         return RemoteRegion{a.ring.addr + kRing, a.ring.key};
       },
       64},
      {"across the end of its own ring",
       [](const Client &a) {
         return RemoteRegion{a.ring.addr + kRing - 8, a.ring.key};
       },
       64},
      {"an arbitrary address and key",
       [](const Client &) { return RemoteRegion{0x10000, 1}; }, 64},
      {"the victim's ring at a guessed key",
       [&](const Client &) { return RemoteRegion{v.addr, v.key + 1}; }, 64},
  };
  std::vector<Client> attackers(attacks.size());
  for (size_t i = 0; i < attacks.size(); ++i) {
    ASSERT_TRUE(attackers[i].open(url, m.hash)) << attacks[i].what;
    Bytes junk(attacks[i].size, 0xa5);
    // Refused writes fail, complete without effect or end the connection,
    // depending on the provider: only the victim's bytes tell.
    attackers[i].conn->writeRemote(junk.data(), junk.size(),
                                   attacks[i].target(attackers[i]));
    // Behind the write on the attacker's connection (one ordered stream):
    // once answered, the write has been dealt with.
    Bytes probe = batch(1, {cMalloc(8)});
    attackers[i].conn->send(probe.data(), probe.size());
  }
  auto answered = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (Client &a : attackers) {
    Bytes reply;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    answered - std::chrono::steady_clock::now())
                    .count();
    a.conn->recv(reply, int(std::max<long>(0, left)));
  }
  EXPECT_EQ(victim.ringBytes(kMarked), mark)
      << "another session's write reached the victim's upload ring";
  attackers.clear(); // their sessions end: the server must survive that
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(serverAlive()) << server->text;
  Client late;
  ASSERT_TRUE(late.open(url, m.hash)) << server->text;
  EXPECT_EQ(victim.ringBytes(kMarked), mark);
  victim.conn.reset();
  late.conn.reset();
  kill(server->pid, SIGTERM);
  EXPECT_EQ(server->wait(), 0) << server->text;
  EXPECT_EQ(server->text.find("invalid pointer"), std::string::npos)
      << server->text;
}

INSTANTIATE_TEST_SUITE_P(Transports, IsolationTest,
                         ::testing::Values(std::string("tcp"),
                                           std::string("shm")),
                         [](const auto &info) { return info.param; });

// Root may ptrace any process, dumpable or not (CAP_SYS_PTRACE), and the
// kernel also refuses a caller whose capabilities are not a superset of
// its target's: both server and attacker drop CAP_SYS_PTRACE (and keep it
// dropped across exec), so that what decides is the server's dumpable
// flag, as between two processes of an ordinary user.
void dropPtraceCapability() {
  prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0); // fails unless root
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct caps[2] = {};
  syscall(SYS_capget, &header, caps);
  uint32_t bit = CAP_TO_MASK(CAP_SYS_PTRACE);
  int word = CAP_TO_INDEX(CAP_SYS_PTRACE);
  caps[word].effective &= ~bit;
  caps[word].permitted &= ~bit;
  caps[word].inheritable &= ~bit;
  syscall(SYS_capset, &header, caps);
}

// What another process of the server's user gets when it tries to write
// the server's memory the way the shm provider's CMA path would
// (process_vm_writev) or through /proc/PID/mem.
struct WriteAttempt {
  int vmWriteErrno = -1; // EPERM: refused; EFAULT: reached the process,
                         // failed at the address (never mapped)
  bool memOpened = true;
};

WriteAttempt writeIntoProcess(pid_t pid) {
  int fds[2];
  if (pipe(fds) != 0)
    return {};
  pid_t child = fork();
  if (child == 0) {
    dropPtraceCapability();
    WriteAttempt a;
    uint64_t word = 0x5a5a5a5a5a5a5a5a;
    iovec local{&word, sizeof word};
    // Below vm.mmap_min_addr: never mapped.
    iovec remote{reinterpret_cast<void *>(uintptr_t(0x1000)), sizeof word};
    a.vmWriteErrno =
        process_vm_writev(pid, &local, 1, &remote, 1, 0) < 0 ? errno : 0;
    std::string mem = "/proc/" + std::to_string(pid) + "/mem";
    int fd = open(mem.c_str(), O_RDWR);
    a.memOpened = fd >= 0;
    ssize_t put = write(fds[1], &a, sizeof a);
    _exit(put == sizeof a ? 0 : 1);
  }
  close(fds[1]);
  WriteAttempt a;
  if (read(fds[0], &a, sizeof a) != sizeof a)
    ADD_FAILURE() << "the attempt reported nothing";
  close(fds[0]);
  waitpid(child, nullptr, 0);
  return a;
}

TEST(ServerMemory, NoOtherProcessMayWriteIt) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--test-device", "--listen", url, "--manifest", m.path},
               serverBin(), dropPtraceCapability);
  ASSERT_TRUE(server.waitFor("listening on", 20000)) << server.text;
  WriteAttempt a = writeIntoProcess(server.pid);
  EXPECT_EQ(a.vmWriteErrno, EPERM)
      << "process_vm_writev into rc-server was not refused";
  EXPECT_FALSE(a.memOpened) << "/proc/PID/mem of rc-server opened";

  // RC_DEV_SERVER_DUMPABLE=1 opens the door again (gdb -p, core dumps): the
  // same write then reaches the process and fails only at the address.
  setenv("RC_DEV_SERVER_DUMPABLE", "1", 1);
  std::string url2 = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child dumpable({"--test-device", "--listen", url2, "--manifest", m.path},
                 serverBin(), dropPtraceCapability);
  unsetenv("RC_DEV_SERVER_DUMPABLE");
  ASSERT_TRUE(dumpable.waitFor("listening on", 20000)) << dumpable.text;
  a = writeIntoProcess(dumpable.pid);
  EXPECT_EQ(a.vmWriteErrno, EFAULT);
  EXPECT_TRUE(a.memOpened);
  EXPECT_NE(dumpable.text.find("RC_DEV_SERVER_DUMPABLE=1"), std::string::npos)
      << dumpable.text;
}

} // namespace
