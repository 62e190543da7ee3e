// rc-server --metrics-listen (docs/metrics.md): the exposition's text,
// the HTTP responder's answers, the refusals at start, a live server
// whose endpoint counts a tcp client's commands, and a supervisor of
// --isolation process whose endpoint sums its workers' reports.
#include "hand_client.h"
#include "isolated_client.h"
#include "key_dir.h"
#include "metrics/metrics_http.h"
#include "metrics/prometheus_text.h"
#include "process_util.h"
#include "random_keys.h"
#include "rc/server/metrics_board.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cstdio>
#include <fstream>
#include <map>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace rc::server;
using namespace rc::server::test;

namespace {

std::string renderNothing() { return "rc_server_sessions_open 0\n"; }

// One HTTP exchange with 127.0.0.1:port; the whole answer.
std::string httpGet(int port, const std::string &request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
    close(fd);
    return "";
  }
  (void)!send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
    out.append(buf, size_t(n));
  close(fd);
  return out;
}

int portOf(const std::string &address) {
  return std::stoi(address.substr(address.rfind(':') + 1));
}

// The endpoint's port, from the line rc-server logs when it listens.
int loggedMetricsPort(const std::string &log) {
  size_t at = log.find("GET http://127.0.0.1:");
  return at == std::string::npos ? -1 : std::stoi(log.substr(at + 21));
}

// Every sample of an exposition, "name{labels}" -> value.
std::map<std::string, double> samplesOf(const std::string &text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.rfind(' ');
    if (line.empty() || line[0] == '#' || space == std::string::npos)
      continue;
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// A sample's value, -1 when the exposition has none.
double sampleOf(const std::string &text, const std::string &sample) {
  auto all = samplesOf(text);
  auto it = all.find(sample);
  return it == all.end() ? -1 : it->second;
}

// The counters' samples (histograms' parts included) of `before` that are
// missing from `after` or lower there.
std::vector<std::string> countersGoneDown(const std::string &before,
                                          const std::string &after) {
  std::vector<std::string> down;
  auto now = samplesOf(after);
  for (const auto &[name, value] : samplesOf(before)) {
    std::string family = name.substr(0, name.find('{'));
    bool counter = family.size() > 6 &&
                   (family.rfind("_total") == family.size() - 6 ||
                    family.find("_duration_seconds_") != std::string::npos);
    auto it = now.find(name);
    if (counter && (it == now.end() || it->second < value))
      down.push_back(name + " " + std::to_string(value) + " -> " +
                     (it == now.end() ? "none" : std::to_string(it->second)));
  }
  return down;
}

TEST(PrometheusText, FamiliesSamplesAndEscapedLabels) {
  PrometheusText p;
  p.family("rc_x_total", "counter", "Things.");
  p.sample("rc_x_total", {{"tenant", "a\"b\\c\nd"}}, uint64_t(7));
  p.sample("rc_x_total", {}, 0.25);
  EXPECT_EQ(p.text(), "# HELP rc_x_total Things.\n"
                      "# TYPE rc_x_total counter\n"
                      "rc_x_total{tenant=\"a\\\"b\\\\c\\nd\"} 7\n"
                      "rc_x_total 0.25\n");
}

TEST(PrometheusText, DurationBucketsSplitAtTheirBounds) {
  EXPECT_EQ(durationBucket(0), 0u);
  EXPECT_EQ(durationBucket(kDurationBucketNs[0]), 0u);
  EXPECT_EQ(durationBucket(kDurationBucketNs[0] + 1), 1u);
  EXPECT_EQ(durationBucket(UINT64_MAX), kDurationBucketCount - 1);
}

TEST(PrometheusText, CloseReasonsBecomeAFewLabels) {
  EXPECT_EQ(closeReasonLabel("goodbye"), "goodbye");
  EXPECT_EQ(closeReasonLabel("handshake refused: no key"), "refused");
  EXPECT_EQ(closeReasonLabel("client disconnected: peer 10.0.0.1 gone"),
            "disconnected");
  EXPECT_EQ(closeReasonLabel("something new"), "other");
}

TEST(MetricsBoardTotals, ClosedSessionsStillCountAfterLeavingTheList) {
  MetricsBoard board;
  for (uint64_t id = 1; id <= MetricsBoard::kClosedKept + 5; ++id) {
    auto m = std::make_shared<SessionMetrics>();
    m->commandCount[size_t(rc::wire::Command::Malloc)].add(2);
    m->commandBuckets[size_t(rc::wire::Command::Malloc)][0].add(2);
    m->bytesIn.add(10);
    board.open(id, m);
    board.close(id, id % 2 ? "goodbye" : "client gone (no sign of life)");
  }
  auto live = std::make_shared<SessionMetrics>();
  live->commandCount[size_t(rc::wire::Command::Malloc)].add(1);
  board.open(1000, live);
  SessionTotals t = board.totals();
  const uint64_t n = MetricsBoard::kClosedKept + 5;
  EXPECT_EQ(t.opened, n + 1);
  EXPECT_EQ(t.commands[size_t(rc::wire::Command::Malloc)], 2 * n + 1);
  EXPECT_EQ(t.bytesIn, 10 * n);
  EXPECT_EQ(t.closedByReason["goodbye"], (n + 1) / 2);
  EXPECT_EQ(t.closedByReason["client_gone"], n / 2);
}

TEST(MetricsHttp, AnswersGetMetricsOnly) {
  auto ask = [](const std::string &req, const std::string &token = "") {
    return answerMetricsRequest(req, token, renderNothing);
  };
  HttpAnswer ok = ask("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, renderNothing());
  EXPECT_NE(ok.contentType.find("version=0.0.4"), std::string::npos);
  EXPECT_EQ(ask("GET /metrics?x=1 HTTP/1.1\r\n\r\n").status, 200);
  EXPECT_EQ(ask("GET / HTTP/1.1\r\n\r\n").status, 404);
  EXPECT_EQ(ask("GET /metricsx HTTP/1.1\r\n\r\n").status, 404);
  HttpAnswer post = ask("POST /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(post.status, 405);
  EXPECT_NE(post.extraHeaders.find("Allow: GET"), std::string::npos);
  EXPECT_EQ(ask("garbage\r\n\r\n").status, 400);
}

TEST(MetricsHttp, ABearerTokenIsRequiredWhenConfigured) {
  auto ask = [](const std::string &headers) {
    return answerMetricsRequest("GET /metrics HTTP/1.1\r\n" + headers + "\r\n",
                                "s3cret", renderNothing)
        .status;
  };
  EXPECT_EQ(ask(""), 401);
  EXPECT_EQ(ask("Authorization: Bearer wrong\r\n"), 401);
  EXPECT_EQ(ask("Authorization: Bearer s3cre\r\n"), 401);
  EXPECT_EQ(ask("Authorization: Basic s3cret\r\n"), 401);
  EXPECT_EQ(ask("Authorization: Bearer s3cret\r\n"), 200);
  EXPECT_EQ(ask("authorization:   Bearer s3cret  \r\n"), 200);
}

TEST(MetricsHttp, ListenAddressesAndTheirPolicy) {
  std::string host, error;
  int port = -1;
  ASSERT_TRUE(parseMetricsListen("9400", &host, &port, &error));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9400);
  ASSERT_TRUE(parseMetricsListen(":0", &host, &port, &error));
  EXPECT_EQ(port, 0);
  ASSERT_TRUE(parseMetricsListen("0.0.0.0:9", &host, &port, &error));
  EXPECT_EQ(host, "0.0.0.0");
  EXPECT_FALSE(parseMetricsListen("host:99999", &host, &port, &error));
  EXPECT_FALSE(parseMetricsListen("host:", &host, &port, &error));
  EXPECT_EQ(metricsListenRefusal("127.0.0.1", false), "");
  EXPECT_NE(metricsListenRefusal("0.0.0.0", false).find("--metrics-token-file"),
            std::string::npos);
  EXPECT_EQ(metricsListenRefusal("0.0.0.0", true), "");
}

TEST(MetricsHttp, TokenFileMustBePrivateAndNotEmpty) {
  char dir[] = "/tmp/rc-metrics-token-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/token";
  std::ofstream(path) << "abc123\nignored\n";
  chmod(path.c_str(), 0644);
  std::string token, error;
  EXPECT_FALSE(readMetricsToken(path, &token, &error));
  EXPECT_NE(error.find("chmod 600"), std::string::npos) << error;
  chmod(path.c_str(), 0600);
  ASSERT_TRUE(readMetricsToken(path, &token, &error)) << error;
  EXPECT_EQ(token, "abc123");
  std::ofstream(path) << "\n";
  EXPECT_FALSE(readMetricsToken(path, &token, &error));
  std::remove(path.c_str());
  rmdir(dir);
}

TEST(MetricsHttp, ServerAnswersOverASocketAndBoundsRequests) {
  MetricsHttpServer server(renderNothing, "");
  std::string error;
  ASSERT_TRUE(server.start("127.0.0.1", 0, &error)) << error;
  int port = portOf(server.address());
  std::string ok = httpGet(port, "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
  EXPECT_NE(ok.find("\r\n\r\nrc_server_sessions_open 0\n"), std::string::npos);
  EXPECT_EQ(httpGet(port, "HEAD /metrics HTTP/1.1\r\n\r\n").find("\r\n\r\nrc_"),
            std::string::npos);
  EXPECT_EQ(httpGet(port, "DELETE /metrics HTTP/1.1\r\n\r\n")
                .rfind("HTTP/1.1 405", 0),
            0u);
  std::string huge = "GET /metrics HTTP/1.1\r\nX: " +
                     std::string(MetricsHttpServer::kMaxRequestBytes, 'a');
  EXPECT_EQ(httpGet(port, huge).rfind("HTTP/1.1 431", 0), 0u);
  // Still serving after all that.
  EXPECT_EQ(
      httpGet(port, "GET /metrics HTTP/1.0\r\n\r\n").rfind("HTTP/1.1 200", 0),
      0u);
}

TEST(MetricsEndpointCli, OffLoopbackWithoutATokenIsRefusedAtStart) {
  Child c({"--listen", "tcp://127.0.0.1:1", "--test-device", "--metrics-listen",
           "0.0.0.0:0"});
  EXPECT_EQ(c.wait(), 2) << c.text;
  EXPECT_NE(c.text.find("--metrics-token-file"), std::string::npos) << c.text;
  // A supervisor of --isolation process keeps the same rule.
  Child iso({"--listen", "tcp://127.0.0.1:1", "--test-device", "--isolation",
             "process", "--metrics-listen", "0.0.0.0:0"});
  EXPECT_EQ(iso.wait(), 2) << iso.text;
  EXPECT_NE(iso.text.find("--metrics-token-file"), std::string::npos)
      << iso.text;
}

#if RC_TEST_HAVE_TRANSPORT
// A live rc-server: a tcp client's commands show up on GET /metrics.
TEST(MetricsEndpointCli, CountsAClientsCommandsByType) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
  size_t at = server.text.find("GET http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << server.text;
  int port = std::stoi(server.text.substr(at + 21));
  {
    std::string err;
    auto c = rc::transport::connect(url, 5000, &err);
    ASSERT_NE(c, nullptr) << err;
    Bytes reply = roundTrip(*c, hello({m.hash}), 5000);
    ASSERT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok());
    Bytes b = batch(1, {cMalloc(64), cMalloc(64), cGoodbye()}, false);
    ASSERT_EQ(c->send(b.data(), b.size()), rc::transport::Status::Ok);
    ASSERT_TRUE(server.waitFor("3 commands", 10000)) << server.text;
  }
  std::string text = httpGet(port, "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_NE(text.find("rc_server_commands_total{type=\"Malloc\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rc_server_command_duration_seconds_count{type="
                      "\"Malloc\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rc_server_sessions_closed_total{reason=\"goodbye\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rc_server_sessions_open 0\n"), std::string::npos);
  EXPECT_NE(text.find("rc_server_gpu_state_lost 0\n"), std::string::npos);
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
}

// A supervisor of --isolation process serves /metrics from its workers'
// reports: a live session's commands show up while it runs; once its
// worker is killed, its last report stays counted and its session counts
// as closed "worker_ended"; a session that says goodbye adds to the sums.
// No counter ever goes down from one scrape to the next, and the worker
// pool's gauges are there.
TEST(MetricsEndpointCli, IsolatedSupervisorSumsItsWorkersReports) {
  TestManifest m = writeTestManifest();
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--isolation", "process", "--warm-workers", "2", "--log-level",
                "debug", "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(server.waitFor("listening on", 20000)) << server.text;
  int port = loggedMetricsPort(server.text);
  ASSERT_GT(port, 0) << server.text;
  auto scrape = [&] {
    std::string answer = httpGet(port, "GET /metrics HTTP/1.1\r\n\r\n");
    size_t body = answer.find("\r\n\r\n");
    return body == std::string::npos ? answer : answer.substr(body + 4);
  };
  // Scrapes until `sample` has `value` (10 s at most); the last scrape.
  auto scrapeUntil = [&](const std::string &sample, double value) {
    std::string text;
    for (int i = 0; i < 200; ++i) {
      text = scrape();
      if (sampleOf(text, sample) == value)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return text;
  };
  const std::string malloc = "rc_server_commands_total{type=\"Malloc\"}";
  std::string start = scrape();
  EXPECT_EQ(sampleOf(start, "rc_server_workers_warm"), 2) << start;
  EXPECT_EQ(sampleOf(start, "rc_server_workers_max"), 32) << start;
  EXPECT_EQ(sampleOf(start, "rc_server_workers{state=\"busy\"}"), 0) << start;
  EXPECT_GE(sampleOf(start, "rc_server_workers{state=\"starting\"}"), 0)
      << start;
  EXPECT_EQ(sampleOf(start, "rc_server_sessions_opened_total"), 0) << start;
  EXPECT_EQ(sampleOf(start, "rc_server_auth_failures_total"), 0) << start;

  // A session that stays open: its worker reports about once a second.
  auto c1 = openIsolatedSession(url, {m.hash});
  ASSERT_NE(c1, nullptr);
  Bytes reply = roundTrip(*c1, batch(1, {cMalloc(64), cMalloc(64)}), 5000);
  ASSERT_FALSE(reply.empty());
  std::string live = scrapeUntil(malloc, 2);
  EXPECT_EQ(sampleOf(live, malloc), 2) << live;
  EXPECT_EQ(sampleOf(live, "rc_server_sessions_opened_total"), 1) << live;
  EXPECT_EQ(sampleOf(live, "rc_server_sessions_open"), 1) << live;
  EXPECT_EQ(sampleOf(live, "rc_server_workers{state=\"busy\"}"), 1) << live;
  EXPECT_EQ(sampleOf(live, "rc_server_command_duration_seconds_count{type="
                           "\"Malloc\"}"),
            2)
      << live;
  EXPECT_GT(sampleOf(live, "rc_server_bytes_total{direction=\"in\"}"), 0)
      << live;
  EXPECT_TRUE(countersGoneDown(start, live).empty());

  // Its worker killed: what it reported last stays counted.
  ASSERT_TRUE(server.waitFor("goes to worker ", 5000)) << server.text;
  size_t at = server.text.rfind("goes to worker ");
  pid_t worker = pid_t(std::atoll(server.text.c_str() + at + 15));
  ASSERT_GT(worker, 0) << server.text;
  ASSERT_EQ(kill(worker, SIGKILL), 0);
  std::string ended =
      scrapeUntil("rc_server_workers_ended_total{how=\"failed\"}", 1);
  EXPECT_EQ(sampleOf(ended, "rc_server_workers_ended_total{how=\"failed\"}"), 1)
      << ended;
  EXPECT_EQ(sampleOf(ended, malloc), 2) << ended;
  EXPECT_EQ(sampleOf(ended, "rc_server_sessions_closed_total{reason="
                            "\"worker_ended\"}"),
            1)
      << ended;
  EXPECT_EQ(sampleOf(ended, "rc_server_sessions_open"), 0) << ended;
  for (const std::string &d : countersGoneDown(live, ended))
    ADD_FAILURE() << "went down after its worker ended: " << d;
  c1.reset();

  // A second session that says goodbye: its worker ends cleanly.
  auto c2 = openIsolatedSession(url, {m.hash});
  ASSERT_NE(c2, nullptr);
  Bytes b = batch(1, {cMalloc(64), cGoodbye()}, false);
  ASSERT_EQ(c2->send(b.data(), b.size()), rc::transport::Status::Ok);
  std::string after =
      scrapeUntil("rc_server_workers_ended_total{how=\"clean\"}", 1);
  EXPECT_EQ(sampleOf(after, malloc), 3) << after;
  EXPECT_EQ(sampleOf(after, "rc_server_sessions_opened_total"), 2) << after;
  EXPECT_EQ(
      sampleOf(after, "rc_server_sessions_closed_total{reason=\"goodbye\"}"), 1)
      << after;
  for (const std::string &d : countersGoneDown(ended, after))
    ADD_FAILURE() << "went down after a second session: " << d;
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
}

// With keys and quotas, the supervisor shows a tenant's device memory as
// its workers charge it to the budget table they share, with its quota,
// and counts a wrong key's failed authentication.
TEST(MetricsEndpointCli, IsolatedSupervisorShowsTenantsMemoryAndAuthFailures) {
  TestManifest m = writeTestManifest();
  rc::test::KeyDir dir;
  rc::auth::Key a = randomKey("team-a");
  std::string keys = dir.write("keys", keyLine(a), 0600);
  std::string quotas =
      dir.write("quotas", "team-a sessions=2 device=64MiB\n", 0600);
  std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
  // Tickets live 10 s: a client on a loaded machine may take a second.
  Child server({"--listen", url, "--manifest", m.path, "--test-device",
                "--isolation", "process", "--auth-key-file", keys, "--quotas",
                quotas, "--metrics-listen", "127.0.0.1:0"},
               serverBin(),
               [] { putenv(strdup("RC_DEV_SERVER_TICKET_MS=10000")); });
  ASSERT_TRUE(server.waitFor("listening on", 20000)) << server.text;
  int port = loggedMetricsPort(server.text);
  ASSERT_GT(port, 0) << server.text;
  const std::string used = "rc_server_tenant_device_memory_bytes{tenant="
                           "\"team-a\"}";
  std::string text = httpGet(port, "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(sampleOf(text.substr(text.find("\r\n\r\n") + 4),
                     "rc_server_tenant_device_memory_bytes_limit{tenant="
                     "\"team-a\"}"),
            64 << 20)
      << text;

  HandClient stranger; // the key's id, another secret
  std::string err;
  EXPECT_FALSE(
      opened(stranger.handshake(url, m.hash, randomKey("team-a"), {}, &err)));
  HandClient front, session;
  Redirected r = redirectIn(front.handshake(url, m.hash, a), url);
  ASSERT_FALSE(r.url.empty());
  ASSERT_TRUE(opened(session.handshake(r.url, m.hash, a, r.ticket)));
  ASSERT_FALSE(
      roundTrip(*session.conn, batch(1, {cMalloc(1 << 20)}), 5000).empty());
  std::string body;
  for (int i = 0; i < 200; ++i) {
    text = httpGet(port, "GET /metrics HTTP/1.1\r\n\r\n");
    body = text.substr(text.find("\r\n\r\n") + 4);
    if (sampleOf(body, "rc_server_device_memory_bytes") >= (1 << 20))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GE(sampleOf(body, used), 1 << 20) << body;
  EXPECT_GE(sampleOf(body, "rc_server_device_memory_bytes"), 1 << 20) << body;
  EXPECT_GE(sampleOf(body, "rc_server_auth_failures_total"), 1) << body;
  EXPECT_EQ(sampleOf(body, "rc_server_sessions_open"), 1) << body;
  session.conn.reset(); // else SIGTERM lets the session run its 30 s out
  kill(server.pid, SIGTERM);
  EXPECT_EQ(server.wait(), 0) << server.text;
}
#endif

} // namespace
