// One session on the host test device, in process, with no transport: the
// manifest, registry, backend and environment every session-level test
// starts from, and the calls that hand the session a message.
#ifndef RC_SERVER_HOST_SESSION_FIXTURE_H
#define RC_SERVER_HOST_SESSION_FIXTURE_H

#include "rc/server/host_backend.h"
#include "rc/server/session.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace rc::server::test {

class HostSessionTest : public ::testing::Test {
protected:
  virtual int testDevices() const { return 1; }
  void SetUp() override {
    m = writeTestManifest();
    std::string err;
    ASSERT_TRUE(reg.addFile(m.path, &err)) << err;
    backend = std::make_unique<HostBackend>(testDevices());
    ASSERT_TRUE(backend->prepare(reg, &err)) << err;
    env = std::make_unique<SessionEnv>(SessionEnv{reg, *backend});
    session = std::make_unique<Session>(*env, 7);
  }

  // A Hello naming the test manifest, which must be accepted.
  void open() {
    Bytes r = send1(hello({m.hash}));
    const wire::HelloReply *hr = asHelloReply(r);
    ASSERT_NE(hr, nullptr);
    ASSERT_TRUE(hr->ok()) << (hr->error() ? hr->error()->str() : "");
  }

  std::vector<Bytes> send(const Bytes &msg, Session::Next *next = nullptr) {
    std::vector<Bytes> replies;
    Session::Next n = session->handle(msg.data(), msg.size(), replies);
    if (next)
      *next = n;
    return replies;
  }
  // Sends and expects exactly one reply.
  Bytes send1(const Bytes &msg) {
    std::vector<Bytes> r = send(msg);
    EXPECT_EQ(r.size(), 1u);
    return r.empty() ? Bytes() : r[0];
  }

  // cudaMalloc in a batch of its own (seq 1); the address.
  uint64_t malloc(uint64_t size) {
    Bytes r = send1(batch(1, {cMalloc(size)}));
    const wire::BatchReply *br = asBatchReply(r);
    EXPECT_NE(br, nullptr);
    const wire::Result *res = resultAt(br, 0);
    EXPECT_NE(res, nullptr);
    return res ? res->addr() : 0;
  }
  // Runs a batch that must fail at `index`; returns the error message.
  std::string expectError(const Bytes &msg, uint32_t index, int code,
                          uint64_t seq) {
    Bytes r = send1(msg);
    const wire::BatchReply *br = asBatchReply(r);
    if (!br || !br->errors() || br->errors()->size() != 1) {
      ADD_FAILURE() << "expected one error";
      return "";
    }
    const wire::Error *e = br->errors()->Get(0);
    EXPECT_EQ(e->seq(), seq);
    EXPECT_EQ(e->index(), index);
    EXPECT_EQ(e->code(), code);
    return e->message() ? e->message()->str() : "";
  }

  TestManifest m;
  Registry reg;
  std::unique_ptr<HostBackend> backend;
  std::unique_ptr<SessionEnv> env;
  std::unique_ptr<Session> session;
};

} // namespace rc::server::test

#endif
