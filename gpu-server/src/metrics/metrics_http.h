// rc-server --metrics-listen ADDR:PORT (docs/metrics.md): a small HTTP/1.1
// responder that answers GET /metrics with the server's figures in
// Prometheus' text format and nothing else (404 for other paths, 405 for
// other methods). One thread serves one connection at a time; a request
// must arrive whole within kRequestTimeoutMs and kMaxRequestBytes, and its
// answer be taken within eight seconds more, so a slow or endless client
// holds the endpoint for ten seconds at most and never much memory. Each
// answer closes its connection.
//
// Off loopback the endpoint asks for a bearer token (--metrics-token-file),
// compared in constant time; rc-server refuses to start otherwise.
#ifndef RC_SERVER_METRICS_HTTP_H
#define RC_SERVER_METRICS_HTTP_H

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace rc::server {

// "127.0.0.1:9400", "localhost:9400", ":9400" or "9400" (loopback), port 0
// for any free one; false with *error on anything else.
bool parseMetricsListen(const std::string &text, std::string *host, int *port,
                        std::string *error);

// Empty when rc-server may serve metrics on `host`; else why not, naming
// --metrics-token-file.
std::string metricsListenRefusal(const std::string &host, bool haveToken);

// The token of --metrics-token-file FILE: its first line, which must not be
// empty; the file must be a regular file its group and others cannot read.
bool readMetricsToken(const std::string &path, std::string *token,
                      std::string *error);

struct HttpAnswer {
  int status = 200;
  std::string reason = "OK";
  std::string contentType = "text/plain; charset=utf-8";
  std::string extraHeaders; // whole lines, each ending in \r\n
  std::string body;
};

// The answer to `request` (its request line and headers): what the server
// thread sends, kept apart so that tests check it without a socket.
// `render` makes the exposition, called only for an authorised GET /metrics.
HttpAnswer answerMetricsRequest(const std::string &request,
                                const std::string &token,
                                const std::function<std::string()> &render);

// The bytes of `answer` on the wire (status line, headers, body).
std::string httpResponseText(const HttpAnswer &answer, bool withBody);

class MetricsHttpServer {
public:
  static constexpr size_t kMaxRequestBytes = 8192;
  static constexpr int kRequestTimeoutMs = 2000;

  MetricsHttpServer(std::function<std::string()> render, std::string token);
  ~MetricsHttpServer(); // stops the thread
  MetricsHttpServer(const MetricsHttpServer &) = delete;
  MetricsHttpServer &operator=(const MetricsHttpServer &) = delete;

  // Binds host:port (port 0: a free one) and starts serving.
  bool start(const std::string &host, int port, std::string *error);
  // "127.0.0.1:9400", the port the system chose included.
  const std::string &address() const { return address_; }

private:
  void loop();
  void serveOne(int fd);

  std::function<std::string()> render_;
  std::string token_;
  std::string address_;
  int listenFd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

} // namespace rc::server

#endif
