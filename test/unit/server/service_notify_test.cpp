// rc-server tells a service manager (systemd, Type=notify) that it is
// ready once its manifests are loaded and its listener is open, and that it
// stops on SIGTERM: datagrams to $NOTIFY_SOCKET, read here from a socket of
// the test's own (docs/operations.md).
#include "process_util.h"
#include "rc/server/service_notify.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

// A datagram socket bound at a fresh path (or abstract name) standing for
// the service manager's, named by NOTIFY_SOCKET while it lives.
struct FakeServiceManager {
  int fd = -1;
  std::string name;

  explicit FakeServiceManager(bool abstract) {
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    std::string unique = "rc-notify-test-" + std::to_string(getpid()) + "-" +
                         std::to_string(counter()++);
    name = abstract ? "@" + unique : "/tmp/" + unique;
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, name.data(), name.size());
    if (abstract)
      a.sun_path[0] = '\0';
    unlink(name.c_str());
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&a),
                   socklen_t(offsetof(sockaddr_un, sun_path) + name.size())),
              0);
    setenv("NOTIFY_SOCKET", name.c_str(), 1);
  }
  ~FakeServiceManager() {
    unsetenv("NOTIFY_SOCKET");
    close(fd);
    if (name[0] == '/')
      unlink(name.c_str());
  }
  static int &counter() {
    static int n = 0;
    return n;
  }
  // The next datagram within `timeoutMs`, or "" when none came.
  std::string next(int timeoutMs) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, timeoutMs) <= 0)
      return "";
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, size_t(n)) : "";
  }
};

TEST(ServiceNotify, SendsTheStateToAPathSocket) {
  FakeServiceManager manager(false);
  std::string error;
  ASSERT_TRUE(notifyServiceManager("READY=1", &error)) << error;
  EXPECT_EQ(manager.next(1000), "READY=1");
}

TEST(ServiceNotify, SendsTheStateToAnAbstractSocket) {
  FakeServiceManager manager(true);
  std::string error;
  ASSERT_TRUE(notifyServiceManager("STOPPING=1", &error)) << error;
  EXPECT_EQ(manager.next(1000), "STOPPING=1");
}

TEST(ServiceNotify, WithoutASocketNothingIsSent) {
  unsetenv("NOTIFY_SOCKET");
  std::string error;
  EXPECT_TRUE(notifyServiceManager("READY=1", &error));
  EXPECT_EQ(error, "");
}

TEST(ServiceNotify, AnUnusableSocketNameIsAnError) {
  std::string error;
  setenv("NOTIFY_SOCKET", "relative/name", 1);
  EXPECT_FALSE(notifyServiceManager("READY=1", &error));
  EXPECT_NE(error.find("relative/name"), std::string::npos) << error;
  error.clear();
  setenv("NOTIFY_SOCKET", "/nonexistent/rc-notify", 1);
  EXPECT_FALSE(notifyServiceManager("READY=1", &error));
  EXPECT_NE(error.find("/nonexistent/rc-notify"), std::string::npos) << error;
  unsetenv("NOTIFY_SOCKET");
}

// The rc-server process: READY=1 only after the manifest is loaded and the
// port accepts; STOPPING=1 on SIGTERM. In both modes: one process, and a
// supervisor with a worker process per session.
void expectReadyThenStopping(const std::vector<std::string> &extra) {
  TestManifest m = writeTestManifest();
  int port = freePort();
  std::vector<std::string> args = {"--listen",
                                   "tcp://127.0.0.1:" + std::to_string(port),
                                   "--manifest", m.path, "--test-device"};
  args.insert(args.end(), extra.begin(), extra.end());
  FakeServiceManager manager(false);
  Child server(args); // inherits NOTIFY_SOCKET
  std::string ready = manager.next(20000);
  ASSERT_NE(ready.find("READY=1"), std::string::npos) << server.text;
  EXPECT_NE(
      ready.find("STATUS=listening on tcp://127.0.0.1:" + std::to_string(port)),
      std::string::npos)
      << ready;
  // Ready means loaded and listening, already logged.
  ASSERT_TRUE(server.waitFor("listening on", 1000)) << server.text;
  EXPECT_NE(server.text.find("1 manifests"), std::string::npos) << server.text;
  int client = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(client, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
  close(client);
  EXPECT_EQ(manager.next(300), "") << "one READY=1, nothing else yet";
  kill(server.pid, SIGTERM);
  EXPECT_EQ(manager.next(10000), "STOPPING=1");
  EXPECT_EQ(server.wait(), 0) << server.text;
}

TEST(ServiceNotify, RcServerIsReadyAfterLoadingAndListening) {
  expectReadyThenStopping({});
}

TEST(ServiceNotify, RcServerSupervisorIsReadyAfterItsFirstWorker) {
  expectReadyThenStopping({"--isolation", "process"});
}

} // namespace
