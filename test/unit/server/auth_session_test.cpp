// Authentication at the session level (docs/protocol.md, "Authentication"):
// a server with keys challenges every Hello, opens the session only for a
// right proof, proves its own key in the HelloReply, refuses wrong keys,
// unknown key ids, missing keys, replayed answers and tampered Hellos, and
// tells a failing peer to back off without ever refusing a right proof.
#include "ext_commands.h"
#include "host_session_fixture.h"
#include "metrics/metrics_json.h"
#include "rc/auth/proof.h"
#include "rc/server/budget_table.h"
#include "rc/server/log.h"
#include "rc/server/session_ticket.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

using namespace rc::server;
using namespace rc::server::test;
using namespace rc::server::test::ext;

namespace {

// A session's connection that only says which host the client is on.
class HostConnection : public NullConnection {
public:
  explicit HostConnection(std::string host, bool sameHost = false)
      : host_(std::move(host)), sameHost_(sameHost) {}
  std::string peerHost() const override { return host_; }
  bool sameHost() const override { return sameHost_; }

private:
  std::string host_;
  bool sameHost_;
};

class AuthSessionTest : public HostSessionTest {
protected:
  void SetUp() override {
    setLogLevel(LogLevel::Quiet);
    HostSessionTest::SetUp();
    key = {"tenant-1", Bytes(32, 0x5a)};
    env->keys = {{"other", Bytes(32, 0x11)}, key};
    AuthThrottle::Policy p;
    p.firstMs = 300;
    throttle = std::make_unique<AuthThrottle>(p);
    env->authThrottle = throttle.get();
    newSession(7, "10.0.0.1");
  }
  void newSession(uint64_t id, const std::string &host, bool sameHost = false) {
    conn = std::make_unique<HostConnection>(host, sameHost);
    session = std::make_unique<Session>(*env, id);
    session->useConnection(conn.get());
  }

  // What the client computes: its proof for `helloMsg` and the challenge.
  rc::auth::Transcript transcriptFor(const Bytes &helloMsg,
                                     const wire::AuthChallenge &c,
                                     const std::string &keyId) {
    rc::auth::Transcript t;
    t.keyId = keyId;
    t.clientNonce.fill(0x42);
    EXPECT_EQ(c.server_nonce()->size(), rc::auth::kNonceBytes);
    std::copy(c.server_nonce()->begin(), c.server_nonce()->end(),
              t.serverNonce.begin());
    t.sessionId = c.session_id();
    t.helloDigest = rc::auth::sha256(helloMsg.data(), helloMsg.size());
    return t;
  }
  Bytes proofBytes(const rc::auth::Key &k, const rc::auth::Transcript &t) {
    rc::auth::Proof p;
    EXPECT_TRUE(rc::auth::clientProof(k, t, &p));
    return Bytes(p.begin(), p.end());
  }

  // The whole handshake with `signingKey`, named `keyId`; the final reply.
  Bytes authenticate(const rc::auth::Key &signingKey, const std::string &keyId,
                     Session::Next *next = nullptr, const Bytes &ticket = {}) {
    Bytes h = authHello({m.hash}, keyId, Bytes(32, 0x42), ticket);
    Bytes c = send1(h);
    const wire::AuthChallenge *challenge = asAuthChallenge(c);
    if (!challenge) {
      ADD_FAILURE() << "no challenge";
      return c;
    }
    std::vector<Bytes> r =
        send(authResponse(
                 proofBytes(signingKey, transcriptFor(h, *challenge, keyId))),
             next);
    EXPECT_EQ(r.size(), 1u);
    return r.empty() ? Bytes() : r[0];
  }

  // rc-server --quotas of `text`, read from a file as rc-server reads it;
  // *path: the file's name (gone again, but named in refusals).
  TenantQuotas quotasOf(const std::string &text, std::string *path = nullptr) {
    char name[] = "/tmp/rc-quotas-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
    close(fd);
    TenantQuotas quotas;
    std::string error;
    EXPECT_TRUE(quotas.load(name, env->keys, &error)) << error;
    std::remove(name);
    if (path)
      *path = name;
    return quotas;
  }

  std::string refusal(const Bytes &reply) {
    const wire::HelloReply *hr = asHelloReply(reply);
    EXPECT_TRUE(hr && !hr->ok() && hr->error());
    return hr && hr->error() ? hr->error()->str() : "";
  }

  rc::auth::Key key;
  std::unique_ptr<AuthThrottle> throttle;
  std::unique_ptr<HostConnection> conn;
};

TEST_F(AuthSessionTest, RightKeyOpensTheSessionAndTheServerProvesItsKey) {
  Bytes h = authHello({m.hash}, "tenant-1", Bytes(32, 0x42));
  Bytes c = send1(h);
  const wire::AuthChallenge *challenge = asAuthChallenge(c);
  ASSERT_NE(challenge, nullptr);
  EXPECT_EQ(challenge->session_id(), 7u);
  rc::auth::Transcript t = transcriptFor(h, *challenge, "tenant-1");
  Bytes r = send1(authResponse(proofBytes(key, t)));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok()) << refusal(r);
  EXPECT_EQ(hr->devices()->size(), 1u);
  rc::auth::Proof expected;
  ASSERT_TRUE(rc::auth::serverProof(key, t, &expected));
  ASSERT_NE(hr->auth_proof(), nullptr);
  EXPECT_TRUE(rc::auth::sameProof(hr->auth_proof()->data(),
                                  hr->auth_proof()->size(), expected));
  EXPECT_NE(malloc(64), 0u); // the session works
}

TEST_F(AuthSessionTest, ChallengesAreFreshPerConnection) {
  Bytes h = authHello({m.hash}, "tenant-1", Bytes(32, 0x42));
  Bytes c1 = send1(h);
  newSession(7, "10.0.0.1");
  Bytes c2 = send1(h);
  ASSERT_TRUE(asAuthChallenge(c1) && asAuthChallenge(c2));
  EXPECT_NE(Bytes(asAuthChallenge(c1)->server_nonce()->begin(),
                  asAuthChallenge(c1)->server_nonce()->end()),
            Bytes(asAuthChallenge(c2)->server_nonce()->begin(),
                  asAuthChallenge(c2)->server_nonce()->end()));
}

TEST_F(AuthSessionTest, WrongKeyIsRefusedAndTheSessionEnds) {
  Session::Next next;
  std::string why =
      refusal(authenticate({"tenant-1", Bytes(32, 0x5b)}, "tenant-1", &next));
  EXPECT_NE(why.find("authentication failed"), std::string::npos) << why;
  EXPECT_NE(why.find("RC_AUTH_KEY_FILE"), std::string::npos) << why;
  EXPECT_EQ(next, Session::Next::Close);
  EXPECT_NE(session->closeReason().find("authentication failed"),
            std::string::npos);
}

TEST_F(AuthSessionTest, UnknownKeyIdFailsExactlyLikeAWrongKey) {
  std::string unknown = refusal(authenticate(key, "nobody"));
  newSession(8, "10.0.0.2");
  std::string wrong = refusal(authenticate({"x", Bytes(32, 1)}, "tenant-1"));
  EXPECT_NE(unknown.find("authentication failed"), std::string::npos);
  // The same sentence, but for the id the client named itself.
  auto withoutId = [](std::string s, const std::string &id) {
    return s.replace(s.find("'" + id + "'"), id.size() + 2, "ID");
  };
  EXPECT_EQ(withoutId(unknown, "nobody"), withoutId(wrong, "tenant-1"));
}

TEST_F(AuthSessionTest, AClientWithoutAKeyIsRefusedBeforeAnythingIsChecked) {
  Session::Next next;
  // An unknown manifest would be named if the Hello got that far.
  std::vector<Bytes> r = send(hello({m.hash, 0x1234}), &next);
  ASSERT_EQ(r.size(), 1u);
  std::string why = refusal(r[0]);
  EXPECT_NE(why.find("authentication required"), std::string::npos) << why;
  EXPECT_NE(why.find("RC_AUTH_KEY_FILE"), std::string::npos) << why;
  EXPECT_EQ(why.find("1234"), std::string::npos) << why;
  EXPECT_EQ(next, Session::Next::Close);
}

TEST_F(AuthSessionTest, BatchesBeforeTheProofRunNothing) {
  ASSERT_NE(
      asAuthChallenge(send1(authHello({m.hash}, "tenant-1", Bytes(32, 0x42)))),
      nullptr);
  std::string msg = expectError(batch(3, {cMalloc(16)}), 0, 3, 3);
  EXPECT_NE(msg.find("before Hello"), std::string::npos) << msg;
  EXPECT_EQ(backend->bytesInUse(), 0u);
}

TEST_F(AuthSessionTest, ARecordedAnswerIsRefusedOnANewConnection) {
  // A good exchange, as an eavesdropper records it.
  Bytes h = authHello({m.hash}, "tenant-1", Bytes(32, 0x42));
  Bytes c = send1(h);
  ASSERT_NE(asAuthChallenge(c), nullptr);
  Bytes answer = authResponse(
      proofBytes(key, transcriptFor(h, *asAuthChallenge(c), "tenant-1")));
  ASSERT_TRUE(asHelloReply(send1(answer))->ok());
  // Replayed on a new connection, even one with the same session id.
  newSession(7, "10.0.0.9");
  ASSERT_NE(asAuthChallenge(send1(h)), nullptr);
  std::string why = refusal(send1(answer));
  EXPECT_NE(why.find("authentication failed"), std::string::npos) << why;
}

TEST_F(AuthSessionTest, TheProofCoversTheHello) {
  // A man in the middle who changes the Hello (here: asks for another
  // manifest set) invalidates the client's proof.
  Bytes sent = authHello({m.hash}, "tenant-1", Bytes(32, 0x42));
  Bytes altered = authHello({}, "tenant-1", Bytes(32, 0x42));
  Bytes c = send1(altered);
  ASSERT_NE(asAuthChallenge(c), nullptr);
  std::string why = refusal(send1(authResponse(
      proofBytes(key, transcriptFor(sent, *asAuthChallenge(c), "tenant-1")))));
  EXPECT_NE(why.find("authentication failed"), std::string::npos) << why;
}

TEST_F(AuthSessionTest, MalformedAnswersAreRefused) {
  ASSERT_NE(
      asAuthChallenge(send1(authHello({m.hash}, "tenant-1", Bytes(32, 0x42)))),
      nullptr);
  EXPECT_NE(refusal(send1(authResponse(Bytes(31, 0)))).find("failed"),
            std::string::npos);
  newSession(8, "10.0.0.2");
  EXPECT_NE(refusal(send1(authHello({m.hash}, "tenant-1", Bytes(8, 1))))
                .find("auth_client_nonce must be 32 bytes, got 8"),
            std::string::npos);
  newSession(9, "10.0.0.3");
  EXPECT_NE(refusal(send1(authResponse(Bytes(32, 0))))
                .find("AuthResponse without a challenge"),
            std::string::npos);
  newSession(10, "10.0.0.4");
  EXPECT_NE(refusal(send1(authHello({m.hash}, "a\nb", Bytes(32, 1))))
                .find("Hello.auth_key_id is not"),
            std::string::npos);
}

TEST_F(AuthSessionTest, AnAnswerWithoutItsBodyIsRefused) {
  ASSERT_NE(
      asAuthChallenge(send1(authHello({m.hash}, "tenant-1", Bytes(32, 0x42)))),
      nullptr);
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(wire::CreateMessage(fbb, wire::Body::AuthResponse, 0), "RCW1");
  Bytes empty(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_NE(refusal(send1(empty)).find("AuthResponse body but carries none"),
            std::string::npos);
}

TEST_F(AuthSessionTest, AnOpenServerRefusesAnAnswerItDidNotAskFor) {
  env->keys.clear();
  newSession(8, "10.0.0.1");
  EXPECT_NE(refusal(send1(authResponse(Bytes(32, 0))))
                .find("AuthResponse without a challenge"),
            std::string::npos);
}

// A stranger who names a tenant's key id from the tenant's own host, and
// fails, never keeps the tenant out: a right proof is always accepted.
// The stranger's next wrong answers are told to back off.
TEST_F(AuthSessionTest, AFailingPeerNeverLocksOutAKeyHolder) {
  std::string why = refusal(authenticate({"x", Bytes(32, 1)}, "tenant-1"));
  EXPECT_EQ(why.find("retry in"), std::string::npos) << why;
  newSession(8, "10.0.0.1");
  EXPECT_TRUE(asHelloReply(authenticate(key, "tenant-1"))->ok());
  newSession(9, "10.0.0.1");
  why = refusal(authenticate({"x", Bytes(32, 1)}, "tenant-1"));
  EXPECT_NE(why.find("authentication failed"), std::string::npos) << why;
  EXPECT_NE(why.find("more failed lately from 10.0.0.1 or naming key "
                     "'tenant-1': retry in"),
            std::string::npos)
      << why;
  // Another key id from that host is backing off (its source is); a
  // right proof of it gets in all the same.
  newSession(10, "10.0.0.1");
  EXPECT_TRUE(asHelloReply(authenticate(env->keys[0], "other"))->ok());
  EXPECT_EQ(throttle->sourcesRemembered(), 1u);
  EXPECT_EQ(throttle->keyIdsRemembered(), 1u);
}

// Two challenges at once from one host; the first answer is wrong, the
// second right: it gets in, as it would have alone.
TEST_F(AuthSessionTest, ARightAnswerBesideAWrongOneGetsIn) {
  Session first(*env, 11), second(*env, 12);
  HostConnection c1("10.0.0.1"), c2("10.0.0.1");
  first.useConnection(&c1);
  second.useConnection(&c2);
  Bytes h = authHello({m.hash}, "tenant-1", Bytes(32, 0x42));
  std::vector<Bytes> r1, r2;
  first.handle(h.data(), h.size(), r1);
  second.handle(h.data(), h.size(), r2);
  ASSERT_TRUE(asAuthChallenge(r1.at(0)) && asAuthChallenge(r2.at(0)));
  Bytes wrong = authResponse(
      proofBytes({"x", Bytes(32, 1)},
                 transcriptFor(h, *asAuthChallenge(r1[0]), "tenant-1")));
  Bytes right = authResponse(
      proofBytes(key, transcriptFor(h, *asAuthChallenge(r2[0]), "tenant-1")));
  std::vector<Bytes> a1, a2;
  first.handle(wrong.data(), wrong.size(), a1);
  second.handle(right.data(), right.size(), a2);
  EXPECT_NE(refusal(a1.at(0)).find("authentication failed"), std::string::npos);
  const wire::HelloReply *hr = asHelloReply(a2.at(0));
  ASSERT_NE(hr, nullptr);
  EXPECT_TRUE(hr->ok()) << (hr->error() ? hr->error()->str() : "");
}

// A worker's session (--isolation process): the ticket the supervisor
// issued to one key opens nothing for another key, however well that one
// authenticates, and stays its holder's.
TEST_F(AuthSessionTest, AWorkersTicketServesOnlyTheKeyItWasIssuedTo) {
  SessionTicket ticket;
  env->ticket = &ticket;
  Bytes t(SessionTicket::kBytes, 0x77);
  ticket.expect({t, "key 'other'",
                 SessionTicket::Clock::now() + std::chrono::seconds(60)});
  Session::Next next;
  std::string why = refusal(authenticate(key, "tenant-1", &next, t));
  EXPECT_NE(why.find("issued to another client"), std::string::npos) << why;
  EXPECT_EQ(next, Session::Next::Close);
  EXPECT_FALSE(ticket.redeemed());
  newSession(8, "10.0.0.1");
  Bytes reply = authenticate(env->keys[0], "other", nullptr, t);
  ASSERT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok())
      << refusal(reply);
  EXPECT_EQ(ticket.redeemedBy(), 8u);
}

} // namespace

// rc-server --quotas: a tenant (the key id its client proved) past its
// sessions bound is refused at the Hello naming the bound; a session that
// ends gives its place back.
TEST_F(AuthSessionTest, ATenantPastItsSessionsQuotaIsRefused) {
  TenantLedger ledger(quotasOf("tenant-1 sessions=1\n"));
  env->tenants = &ledger;
  ASSERT_TRUE(asHelloReply(authenticate(key, "tenant-1"))->ok());
  EXPECT_EQ(session->tenant(), "tenant-1");
  // The tenant is in the session's metrics, as --metrics writes them.
  std::string json;
  appendSessionJson(json, SessionHeader{7}, *session->metrics());
  EXPECT_NE(json.find("\"tenant\":\"tenant-1\""), std::string::npos) << json;
  std::unique_ptr<Session> first = std::move(session);
  newSession(8, "10.0.0.1");
  Session::Next next;
  std::string why = refusal(authenticate(key, "tenant-1", &next));
  EXPECT_NE(why.find("tenant 'tenant-1' has 1 session(s) open"),
            std::string::npos)
      << why;
  EXPECT_EQ(next, Session::Next::Close);
  session.reset();
  first.reset(); // gives the place back
  newSession(9, "10.0.0.1");
  EXPECT_TRUE(asHelloReply(authenticate(key, "tenant-1"))->ok());
  EXPECT_EQ(ledger.sessions("tenant-1"), 1);
  session.reset();
  EXPECT_EQ(ledger.sessions("tenant-1"), 0);
}

// rc-server --quotas device=SIZE pinned=SIZE: a tenant's sessions draw on
// one budget of each; past one, the command fails naming the tenant, the
// bound and the file. Driver VMM memory counts until its handle and its
// last mapping are gone (ggml releases the handle right after mapping), and
// a session that ends gives back all it held.
TEST_F(AuthSessionTest, ATenantsSessionsShareItsMemoryQuotas) {
  std::string path, error;
  TenantQuotas quotas = quotasOf("tenant-1 device=4MiB pinned=1MiB\n", &path);
  std::unique_ptr<BudgetTable> table = BudgetTable::create(
      serverBudgetSpecs(ServerLimits(), &quotas, env->keys), 1, &error);
  ASSERT_TRUE(table) << error;
  env->budgetTable = table.get();
  // Sessions charge the table: they end before it does, even on a failure.
  struct EndSession {
    std::unique_ptr<Session> &s;
    ~EndSession() { s.reset(); }
  } endSession{session};
  std::unique_ptr<ByteBudget> device =
      table->budget(tenantDeviceBudget("tenant-1"));
  std::unique_ptr<ByteBudget> pinned =
      table->budget(tenantPinnedBudget("tenant-1"));
  ASSERT_TRUE(device && pinned);
  // A tenant without a quota has unbounded budgets, which a reload of the
  // quotas may bound (docs/metrics.md, "Reloading keys and quotas").
  std::unique_ptr<ByteBudget> other =
      table->budget(tenantDeviceBudget("other"));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->total(), UINT64_MAX);

  ASSERT_TRUE(asHelloReply(authenticate(key, "tenant-1"))->ok());
  EXPECT_NE(malloc(3 << 20), 0u);
  EXPECT_EQ(device->used(), 3u << 20);
  std::unique_ptr<Session> first = std::move(session);
  std::unique_ptr<HostConnection> firstConn = std::move(conn);
  newSession(8, "10.0.0.1", true);
  ASSERT_TRUE(asHelloReply(authenticate(key, "tenant-1"))->ok());
  std::string e = expectError(batch(2, {cMalloc(2 << 20)}), 0,
                              2 /* cudaErrorMemoryAllocation */, 2);
  EXPECT_NE(e.find("2097152 more bytes do not fit tenant 'tenant-1''s "
                   "device memory (3145728 of 4194304 bytes in use; its "
                   "quota device=4194304 in " +
                   path),
            std::string::npos)
      << e;
  // VMM: a mapped 1 MiB whose handle is released still counts.
  Bytes r = send1(batch(3, {cReserve(2 << 20)}));
  ASSERT_TRUE(resultAt(asBatchReply(r), 0));
  uint64_t base = resultAt(asBatchReply(r), 0)->addr();
  r = send1(batch(4, {cCreate(0x77, 1 << 20), cMap(base, 1 << 20, 0, 0x77),
                      cRelease(0x77)}));
  ASSERT_TRUE(asBatchReply(r));
  if (const auto *errors = asBatchReply(r)->errors())
    ASSERT_EQ(errors->size(), 0u) << errors->Get(0)->message()->str();
  EXPECT_EQ(device->used(), 4u << 20);
  e = expectError(batch(5, {cCreate(0x78, 1 << 20)}), 0, 2, 5);
  EXPECT_NE(e.find("tenant 'tenant-1''s device memory"), std::string::npos)
      << e;
  send1(batch(6, {cUnmap(base, 1 << 20)}));
  EXPECT_EQ(device->used(), 3u << 20);
  // Pinned memory shared with the client: the tenant's 1 MiB.
  e = expectError(batch(7, {cHostShare(2 << 20)}), 0, 2, 7);
  EXPECT_NE(e.find("tenant 'tenant-1''s pinned host memory"), std::string::npos)
      << e;
  send1(batch(8, {cHostShare(1 << 20)}));
  EXPECT_EQ(pinned->used(), 1u << 20);
  session.reset();
  EXPECT_EQ(pinned->used(), 0u);
  first.reset();
  EXPECT_EQ(device->used(), 0u);
}

// rc-server --quotas priority=high: every stream the tenant's sessions
// create, or set a priority on, runs at the greatest priority whatever the
// program asked, and the HelloReply says so (the runtime then answers
// cudaStreamGetPriority with it). Another tenant's streams are as asked.
TEST_F(AuthSessionTest, ATenantsStreamPriorityGoesToEveryStream) {
  TenantQuotas quotas = quotasOf("tenant-1 priority=high\n");
  env->quotas = &quotas;
  struct EndSession {
    std::unique_ptr<Session> &s;
    ~EndSession() { s.reset(); }
  } endSession{session};
  Bytes r = authenticate(key, "tenant-1");
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_TRUE(hr && hr->ok());
  EXPECT_TRUE(hr->stream_priority_set());
  EXPECT_EQ(hr->stream_priority(), kGreatestStreamPriority);
  send1(batch(2, {cStreamCreate(0x500)}));
  ASSERT_FALSE(backend->streamPriorities().empty());
  EXPECT_EQ(backend->streamPriorities().back(), kGreatestStreamPriority);

  newSession(8, "10.0.0.1");
  hr = asHelloReply(r = authenticate(env->keys[0], "other"));
  ASSERT_TRUE(hr && hr->ok());
  EXPECT_FALSE(hr->stream_priority_set());
  send1(batch(2, {cStreamCreate(0x500)}));
  EXPECT_EQ(backend->streamPriorities().back(), kDefaultStreamPriority);
}
