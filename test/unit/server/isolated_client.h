// A raw client of rc-server --isolation process: the Hello to the
// supervisor, its redirect followed to the worker with the ticket.
#ifndef RC_SERVER_TEST_ISOLATED_CLIENT_H
#define RC_SERVER_TEST_ISOLATED_CLIENT_H

#include "rc/transport.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace rc::server::test {

struct Redirect {
  std::string url; // the worker's, resolved against the supervisor's
  std::vector<uint8_t> ticket;
};

// Says Hello to the supervisor at `url`; the redirect it answers with.
inline Redirect askForWorker(const std::string &url,
                             const std::vector<uint64_t> &hashes) {
  Redirect r;
  std::string err;
  auto conn = transport::connect(url, 5000, &err);
  EXPECT_NE(conn, nullptr) << err;
  if (!conn)
    return r;
  Bytes reply = roundTrip(*conn, hello(hashes), 5000);
  const wire::HelloReply *hr = asHelloReply(reply);
  EXPECT_TRUE(hr && !hr->ok() && hr->redirect() && hr->ticket())
      << "no redirect from the supervisor";
  if (!hr || !hr->redirect() || !hr->ticket())
    return r;
  r.url = transport::redirectUrl(hr->redirect()->str(), url, &err);
  EXPECT_FALSE(r.url.empty()) << err;
  r.ticket.assign(hr->ticket()->begin(), hr->ticket()->end());
  return r;
}

// The worker's answer to a Hello with `r`'s ticket but one bit flipped,
// from a connection of its own (a refusal: a worker honours its ticket
// only).
inline Bytes helloWithAnotherTicket(const Redirect &r,
                                    const std::vector<uint64_t> &hashes) {
  std::string err;
  auto conn = transport::connect(r.url, 5000, &err);
  EXPECT_NE(conn, nullptr) << r.url << ": " << err;
  if (!conn || r.ticket.empty())
    return {};
  std::vector<uint8_t> other = r.ticket;
  other[0] ^= 1;
  return roundTrip(*conn, ticketHello(hashes, other), 5000);
}

// A session in a worker: the connection, after the worker accepted the
// ticket's Hello (null, with a test failure, otherwise).
inline std::unique_ptr<transport::Connection>
openIsolatedSession(const std::string &url, const std::vector<uint64_t> &hashes,
                    Bytes *helloReply = nullptr) {
  Redirect r = askForWorker(url, hashes);
  if (r.url.empty())
    return nullptr;
  std::string err;
  auto conn = transport::connect(r.url, 5000, &err);
  EXPECT_NE(conn, nullptr) << r.url << ": " << err;
  if (!conn)
    return nullptr;
  Bytes reply = roundTrip(*conn, ticketHello(hashes, r.ticket), 5000);
  const wire::HelloReply *hr = asHelloReply(reply);
  EXPECT_TRUE(hr && hr->ok()) << (hr && hr->error() ? hr->error()->str() : "");
  if (!hr || !hr->ok())
    return nullptr;
  if (helloReply)
    *helloReply = reply;
  return conn;
}

} // namespace rc::server::test

#endif
