// Deferred stream syncs: an elided cudaStreamSynchronize waits on the host
// only when a command not ordered behind it on the same stream comes, or a
// batch the client waits for ends (docs/server.md). The host test device
// counts the waits and stamps each launch with the count before it.
#include "host_session_fixture.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace rc::server;
using namespace rc::server::test;

namespace {

class DeferredSyncTest : public HostSessionTest {
protected:
  void TearDown() override { unsetenv("RC_SERVER_DEFER_SYNC"); }

  // Hello (the setting is read then, when the executor starts) and the
  // buffer and streams the tests use.
  void open() {
    ASSERT_EQ(send(hello({m.hash})).size(), 1u);
    std::vector<Bytes> r =
        send(batch(1, {cMalloc(256), cStreamCreate(10), cStreamCreate(11)}));
    ASSERT_EQ(r.size(), 1u);
    const wire::Result *res = resultAt(asBatchReply(r[0]), 0);
    ASSERT_NE(res, nullptr);
    buf = res->addr();
  }
  Cmd launchOn(uint64_t stream) {
    return cLaunch(m.scaleId, scaleArgs(buf, 1), stream);
  }

  uint64_t buf = 0;
};

TEST_F(DeferredSyncTest, SameStreamWorkDoesNotWait) {
  open();
  // An upload, its elided sync, a launch, another sync, a launch: nothing
  // here observes the host-side order, and nobody waits for a reply.
  EXPECT_EQ(send(batch(2,
                       {cH2D(buf, Bytes(16, 1), 10), cStreamSync(10),
                        launchOn(10), cStreamSync(10), launchOn(10)},
                       false))
                .size(),
            0u);
  // Still not: the next batch goes on on the same stream.
  send(batch(3, {cStreamSync(10), launchOn(10)}, false));
  EXPECT_EQ(backend->streamSyncs(), 0u);
  // A read-back the client waits for: one wait, at the end of its batch.
  std::vector<Bytes> r = send(batch(4, {cD2H(buf, 16, 10), cStreamSync(10)}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(asBatchReply(r[0])->errors()->size(), 0u);
  EXPECT_EQ(backend->streamSyncs(), 1u);
  for (const LaunchRecord &l : backend->launches())
    EXPECT_EQ(l.syncsBefore, 0u);
}

TEST_F(DeferredSyncTest, AnotherStreamWaitsForTheSync) {
  open();
  send(batch(2, {launchOn(10), cStreamSync(10)}, false));
  EXPECT_EQ(backend->streamSyncs(), 0u);
  // Work on stream 11 issued after the host synchronized stream 10 must
  // start after it: the server waits before launching it.
  send(batch(3, {launchOn(11)}, false));
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].syncsBefore, 0u);
  EXPECT_EQ(launches[1].syncsBefore, 1u);
}

TEST_F(DeferredSyncTest, CommandsThatObserveTheHostOrderWait) {
  open();
  // An event query, a free and a device sync are not stream-ordered.
  send(batch(2,
             {cEventCreate(20), launchOn(10), cStreamSync(10), cEventQuery(20)},
             false));
  EXPECT_EQ(backend->streamSyncs(), 1u);
  send(batch(3, {cStreamSync(10), cFree(buf)}, false));
  EXPECT_EQ(backend->streamSyncs(), 2u);
}

TEST_F(DeferredSyncTest, TurnedOffEverySyncWaitsAtOnce) {
  setenv("RC_SERVER_DEFER_SYNC", "0", 1);
  open();
  send(batch(2, {launchOn(10), cStreamSync(10), launchOn(10)}, false));
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].syncsBefore, 0u);
  EXPECT_EQ(launches[1].syncsBefore, 1u);
}

} // namespace
