#include "metrics/metrics_http.h"

#include "rc/server/listen_policy.h"
#include "rc/server/log.h"

#include <openssl/crypto.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::server {

namespace {

constexpr int kAcceptPollMs = 200; // how soon the thread sees a stop
constexpr off_t kMaxTokenFileBytes = 4096;
// How long a scraper may take to read the answer (an exposition of a few
// hundred KiB at most).
constexpr int kAnswerTimeoutMs = 8000;

bool allDigits(const std::string &s) {
  return !s.empty() && s.size() <= 5 &&
         s.find_first_not_of("0123456789") == std::string::npos;
}

// The value of header `name` (case-insensitive) in `request`, or "".
std::string headerValue(const std::string &request, const std::string &name) {
  size_t at = request.find("\r\n");
  while (at != std::string::npos && at + 2 < request.size()) {
    size_t start = at + 2, end = request.find("\r\n", start);
    if (end == std::string::npos)
      end = request.size();
    std::string line = request.substr(start, end - start);
    size_t colon = line.find(':');
    if (colon == name.size() &&
        strncasecmp(line.c_str(), name.c_str(), name.size()) == 0) {
      size_t v = line.find_first_not_of(" \t", colon + 1);
      size_t last = line.find_last_not_of(" \t");
      return v == std::string::npos ? "" : line.substr(v, last - v + 1);
    }
    at = end;
  }
  return "";
}

bool tokenMatches(const std::string &given, const std::string &token) {
  return given.size() == token.size() &&
         CRYPTO_memcmp(given.data(), token.data(), token.size()) == 0;
}

HttpAnswer plain(int status, const char *reason, const std::string &body) {
  HttpAnswer a;
  a.status = status;
  a.reason = reason;
  a.body = body + "\n";
  return a;
}

} // namespace

bool parseMetricsListen(const std::string &text, std::string *host, int *port,
                        std::string *error) {
  size_t colon = text.rfind(':');
  std::string h = colon == std::string::npos ? "" : text.substr(0, colon);
  std::string p = colon == std::string::npos ? text : text.substr(colon + 1);
  if (!allDigits(p) || std::stol(p) > 65535 ||
      h.find_first_of("[]/ ") != std::string::npos) {
    *error = "--metrics-listen needs ADDR:PORT, :PORT or PORT (an IPv4 "
             "address or host name, port 0 for any free one), got '" +
             text + "'";
    return false;
  }
  *host = h.empty() ? "127.0.0.1" : h;
  *port = int(std::stol(p));
  return true;
}

std::string metricsListenRefusal(const std::string &host, bool haveToken) {
  if (haveToken || reachesOnlyThisHost("tcp://" + host + ":1"))
    return "";
  return "--metrics-listen " + host +
         " is reachable from other hosts: the metrics name every tenant and "
         "their use, so serving them off loopback needs "
         "--metrics-token-file FILE (scrapers send its token as "
         "'Authorization: Bearer TOKEN'); or listen on 127.0.0.1";
}

bool readMetricsToken(const std::string &path, std::string *token,
                      std::string *error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error =
        "cannot open metrics token file " + path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st{};
  std::string why, text;
  if (fstat(fd, &st) != 0)
    why = std::string("cannot stat it: ") + std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = "it is not a regular file";
  else if (st.st_mode & (S_IRWXG | S_IRWXO))
    why = "its group or others may read or change it; run chmod 600 " + path;
  else if (st.st_size > kMaxTokenFileBytes)
    why = "it has more than " + std::to_string(kMaxTokenFileBytes) + " bytes";
  if (why.empty()) {
    text.resize(size_t(st.st_size));
    ssize_t n = read(fd, text.data(), text.size());
    text.resize(n < 0 ? 0 : size_t(n));
    if (n < 0)
      why = std::string("cannot read it: ") + std::strerror(errno);
  }
  close(fd);
  std::string line = text.substr(0, text.find_first_of("\r\n"));
  if (why.empty() && line.find_first_not_of(" \t") == std::string::npos)
    why = "its first line is empty (put the token there)";
  if (!why.empty()) {
    *error = "refusing metrics token file " + path + ": " + why;
    return false;
  }
  *token = line;
  return true;
}

HttpAnswer answerMetricsRequest(const std::string &request,
                                const std::string &token,
                                const std::function<std::string()> &render) {
  std::string line = request.substr(0, request.find("\r\n"));
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.compare(sp2 + 1, 5, "HTTP/") != 0)
    return plain(400, "Bad Request", "malformed request line");
  std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string path = target.substr(0, target.find('?'));
  if (path != "/metrics")
    return plain(404, "Not Found", "only /metrics is served here");
  if (method != "GET" && method != "HEAD") {
    HttpAnswer a = plain(405, "Method Not Allowed", "only GET /metrics");
    a.extraHeaders = "Allow: GET, HEAD\r\n";
    return a;
  }
  if (!token.empty()) {
    std::string auth = headerValue(request, "Authorization");
    const std::string scheme = "Bearer ";
    if (auth.size() < scheme.size() ||
        strncasecmp(auth.c_str(), scheme.c_str(), scheme.size()) != 0 ||
        !tokenMatches(auth.substr(scheme.size()), token)) {
      HttpAnswer a = plain(401, "Unauthorized",
                           "this endpoint needs 'Authorization: Bearer TOKEN' "
                           "with the token of rc-server --metrics-token-file");
      a.extraHeaders = "WWW-Authenticate: Bearer realm=\"rc-server\"\r\n";
      return a;
    }
  }
  HttpAnswer a;
  a.contentType = "text/plain; version=0.0.4; charset=utf-8";
  a.body = render();
  return a;
}

std::string httpResponseText(const HttpAnswer &a, bool withBody) {
  std::string out = "HTTP/1.1 " + std::to_string(a.status) + " " + a.reason +
                    "\r\nContent-Type: " + a.contentType +
                    "\r\nContent-Length: " + std::to_string(a.body.size()) +
                    "\r\nConnection: close\r\n" + a.extraHeaders + "\r\n";
  if (withBody)
    out += a.body;
  return out;
}

MetricsHttpServer::MetricsHttpServer(std::function<std::string()> render,
                                     std::string token)
    : render_(std::move(render)), token_(std::move(token)) {}

MetricsHttpServer::~MetricsHttpServer() {
  stopping_ = true;
  if (thread_.joinable())
    thread_.join();
  if (listenFd_ >= 0)
    close(listenFd_);
}

bool MetricsHttpServer::start(const std::string &host, int port,
                              std::string *error) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || !found) {
    *error =
        "--metrics-listen: cannot resolve '" + host + "': " + gai_strerror(rc);
    return false;
  }
  sockaddr_in addr = *reinterpret_cast<sockaddr_in *>(found->ai_addr);
  freeaddrinfo(found);
  addr.sin_port = htons(uint16_t(port));
  listenFd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listenFd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (listenFd_ < 0 ||
      bind(listenFd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
      listen(listenFd_, 16) != 0) {
    *error = "--metrics-listen: cannot listen on " + host + ":" +
             std::to_string(port) + ": " + std::strerror(errno);
    return false;
  }
  socklen_t len = sizeof addr;
  getsockname(listenFd_, reinterpret_cast<sockaddr *>(&addr), &len);
  char ip[INET_ADDRSTRLEN] = "";
  inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof ip);
  address_ = std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port));
  thread_ = std::thread([this] { loop(); });
  return true;
}

void MetricsHttpServer::loop() {
  while (!stopping_) {
    pollfd p{listenFd_, POLLIN, 0};
    if (poll(&p, 1, kAcceptPollMs) <= 0)
      continue;
    int fd = accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0)
      continue;
    serveOne(fd);
    close(fd);
  }
}

void MetricsHttpServer::serveOne(int fd) {
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(kRequestTimeoutMs);
  std::string request;
  char buf[1024];
  while (request.find("\r\n\r\n") == std::string::npos) {
    if (request.size() > kMaxRequestBytes) {
      std::string text = httpResponseText(
          plain(431, "Request Header Fields Too Large",
                "a request may have " + std::to_string(kMaxRequestBytes) +
                    " bytes"),
          true);
      (void)!send(fd, text.data(), text.size(), MSG_NOSIGNAL);
      return;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, int(left)) <= 0)
      return; // too slow: dropped without an answer
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0)
      return;
    request.append(buf, size_t(n));
  }
  HttpAnswer answer = answerMetricsRequest(request, token_, render_);
  if (answer.status == 401) // debug only: a scanner must not fill the log
    logDebug("metrics endpoint: request without the right bearer token");
  std::string text =
      httpResponseText(answer, request.compare(0, 5, "HEAD ") != 0);
  const auto answerDeadline =
      Clock::now() + std::chrono::milliseconds(kAnswerTimeoutMs);
  size_t sent = 0;
  while (sent < text.size()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    answerDeadline - Clock::now())
                    .count();
    pollfd p{fd, POLLOUT, 0};
    if (left <= 0 || poll(&p, 1, int(left)) <= 0)
      return;
    ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0)
      return;
    sent += size_t(n);
  }
}

} // namespace rc::server
