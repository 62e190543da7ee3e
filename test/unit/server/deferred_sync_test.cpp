// Deferred stream syncs: an elided cudaStreamSynchronize waits on the host
// only when a command that may observe the host order comes, or a batch the
// client waits for ends, and only if its work is not known to be done; work
// on another stream waits for it on the GPU unless already ordered behind it
// (docs/server.md). The host test device counts host waits and stream-event
// waits and stamps each launch with both counts before it.
#include "host_session_fixture.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace rc::server;
using namespace rc::server::test;

namespace {

class DeferredSyncTest : public HostSessionTest {
protected:
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
  // The client waits for this batch: one host wait, at its end.
  std::vector<Bytes> r = send(batch(4, {launchOn(10), cStreamSync(10)}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(asBatchReply(r[0])->errors()->size(), 0u);
  EXPECT_EQ(backend->streamSyncs(), 1u);
  for (const LaunchRecord &l : backend->launches())
    EXPECT_EQ(l.syncsBefore, 0u);
  // A read-back returns once the stream got there: its sync needs no wait.
  r = send(batch(5, {launchOn(10), cD2H(buf, 16, 10), cStreamSync(10)}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(backend->streamSyncs(), 1u);
}

TEST_F(DeferredSyncTest, AnotherStreamWaitsForTheSyncOnTheGpu) {
  open();
  send(batch(2, {launchOn(10), cStreamSync(10)}, false));
  EXPECT_EQ(backend->streamSyncs(), 0u);
  // Work on stream 11 issued after the host synchronized stream 10 must
  // start after it: stream 11 waits for an event on stream 10 first, once.
  send(batch(3, {launchOn(11), launchOn(11)}, false));
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].waitsBefore, 0u);
  EXPECT_EQ(launches[1].waitsBefore, 1u);
  EXPECT_EQ(launches[2].waitsBefore, 1u);
  EXPECT_EQ(backend->streamSyncs(), 0u);
  // The client waits for stream 10's sync: the host does.
  std::vector<Bytes> r = send(batch(4, {cEventCreate(20)}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(asBatchReply(r[0])->errors()->size(), 0u);
  EXPECT_EQ(backend->streamSyncs(), 1u);
}

TEST_F(DeferredSyncTest, SyncedStreamBusySinceTheSyncWaitsOnTheHost) {
  open();
  // An event recorded on stream 10 now would also cover the launch after
  // the sync, which stream 11 need not wait for: the host waits instead.
  send(batch(2, {launchOn(10), cStreamSync(10), launchOn(10), launchOn(11)},
             false));
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[2].syncsBefore, 1u);
  EXPECT_EQ(backend->streamWaits(), 0u);
}

TEST_F(DeferredSyncTest, OneWaitServesASyncThatCoversAnother) {
  open();
  // Stream 11 waited for stream 10's sync, then was synced itself: stream
  // 12 waits for stream 11 only (which implies 10), and so does the host.
  send(batch(2,
             {cStreamCreate(12), launchOn(10), cStreamSync(10), launchOn(11),
              cStreamSync(11), launchOn(12), launchOn(10)},
             false));
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 4u);
  EXPECT_EQ(launches[1].waitsBefore, 1u); // 11 behind 10
  EXPECT_EQ(launches[2].waitsBefore, 2u); // 12 behind 11
  EXPECT_EQ(launches[3].waitsBefore, 3u); // 10 behind 11
  send(batch(3, {cEventCreate(20)}));
  EXPECT_EQ(backend->streamSyncs(), 1u);
}

TEST_F(DeferredSyncTest, UploadsBetweenSyncsOfTwoStreamsNeverWaitOnTheHost) {
  open();
  // llama.cpp's inputs of a decode token: each upload on the per-thread
  // stream between syncs of the compute stream and of the per-thread
  // stream; then the graph's launch and the read-back on the compute stream.
  const uint64_t compute = 10, perThread = 2;
  std::vector<Cmd> token;
  for (int i = 0; i < 3; ++i) {
    token.push_back(cStreamSync(compute));
    token.push_back(cH2D(buf, Bytes(16, uint8_t(i)), perThread));
    token.push_back(cStreamSync(perThread));
  }
  token.push_back(launchOn(compute));
  token.push_back(cD2H(buf, 16, compute));
  token.push_back(cStreamSync(compute));
  for (int t = 0; t < 2; ++t) {
    std::vector<Bytes> r = send(batch(2 + t, token));
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(asBatchReply(r[0])->errors()->size(), 0u);
  }
  // One fence a token, before the launch (the compute stream has no work
  // between the uploads, so its syncs ask for nothing); no host wait: the
  // read-back waited for the compute stream and, through the fence, for
  // the uploads.
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].waitsBefore, 1u);
  EXPECT_EQ(launches[1].waitsBefore, 2u);
  EXPECT_EQ(backend->streamSyncs(), 0u);
}

TEST_F(DeferredSyncTest, AfterAnUntrackedCommandNoStreamCountsAsIdle) {
  open();
  // The read-back shows stream 11 idle; then a command that is not
  // stream-ordered (here a stream's wait for an event; a cuBLAS call alike)
  // may give it work the executor does not see: its sync stays pending,
  // and stream 10's launch is ordered behind it.
  send(batch(2,
             {launchOn(11), cD2H(buf, 16, 11), cEventCreate(20),
              cStreamWaitEvent(11, 20), cStreamSync(11), launchOn(10)},
             false));
  std::vector<LaunchRecord> launches = backend->launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[1].syncsBefore, 0u);
  EXPECT_EQ(launches[1].waitsBefore, 2u); // the client's wait and the fence
}

TEST_F(DeferredSyncTest, AFenceEventIsRecordedAgainAfterAnUntrackedCommand) {
  open();
  // The event recorded on stream 10 for stream 11 cannot serve stream 12:
  // stream 10's wait for event 20 between them is work the executor does
  // not track.
  send(batch(2,
             {cStreamCreate(12), cEventCreate(20), launchOn(10),
              cStreamSync(10), launchOn(11), cStreamWaitEvent(10, 20),
              cStreamSync(10), launchOn(12)},
             false));
  EXPECT_EQ(backend->streamSyncs(), 1u); // before the untracked wait
  EXPECT_EQ(backend->eventRecords(), 2u);
  EXPECT_EQ(backend->streamWaits(), 3u); // two fences and the client's
}

TEST_F(DeferredSyncTest, CommandsThatObserveTheHostOrderWait) {
  open();
  // An event query, a free and a device sync are not stream-ordered.
  send(batch(2,
             {cEventCreate(20), launchOn(10), cStreamSync(10), cEventQuery(20)},
             false));
  EXPECT_EQ(backend->streamSyncs(), 1u);
  // Stream 10 is known to be idle: syncing it again asks for nothing.
  send(batch(3, {cStreamSync(10), cEventQuery(20)}, false));
  EXPECT_EQ(backend->streamSyncs(), 1u);
  send(batch(4, {launchOn(10), cStreamSync(10), cFree(buf)}, false));
  EXPECT_EQ(backend->streamSyncs(), 2u);
}

class DeferredSyncTwoDevicesTest : public DeferredSyncTest {
protected:
  int testDevices() const override { return 2; }
};

TEST_F(DeferredSyncTwoDevicesTest, StreamOfAnotherDeviceWaitsOnTheHost) {
  open();
  std::vector<Bytes> r = send(batch(
      2, {cSetDevice(1), cMalloc(256), cStreamCreate(12), cSetDevice(0)}));
  ASSERT_EQ(r.size(), 1u);
  const wire::Result *res = resultAt(asBatchReply(r[0]), 1);
  ASSERT_NE(res, nullptr);
  // A fence's event would belong to device 0; stream 12 is device 1's.
  send(batch(3,
             {launchOn(10), cStreamSync(10), cMemset(res->addr(), 0, 16, 12)},
             false));
  EXPECT_EQ(backend->streamSyncs(), 1u);
  EXPECT_EQ(backend->streamWaits(), 0u);
}

} // namespace
