// The server's recent round-trip summary: each field's median and 90th
// percentile over the last RoundTripLog::kCapacity samples only.
#include "rc/server/round_trip_log.h"

#include <gtest/gtest.h>

using rc::server::RoundTripLog;
using rc::server::RoundTripSample;

namespace {
RoundTripSample sample(uint64_t v) {
  RoundTripSample s;
  s.gapNs = v;
  s.replayNs = 2 * v;
  s.readbackNs = 3 * v;
  s.buildNs = 4 * v;
  s.sendNs = 5 * v;
  s.uploadNs = 6 * v;
  s.launchNs = 7 * v;
  s.syncNs = 8 * v;
  return s;
}
} // namespace

TEST(RoundTripLog, EmptyHasNoSamples) {
  RoundTripLog log;
  EXPECT_EQ(log.summary().count, 0u);
}

TEST(RoundTripLog, MedianAndP90OfEachField) {
  RoundTripLog log;
  // 1..100 in a scrambled order: the summary must not depend on it.
  for (uint64_t i = 0; i < 100; ++i)
    log.add(sample((i * 37) % 100 + 1));
  RoundTripLog::Summary s = log.summary();
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.median.gapNs, 51u); // nearest rank: element 50 of 1..100
  EXPECT_EQ(s.median.sendNs, 5 * 51u);
  EXPECT_EQ(s.p90.gapNs, 91u);
  EXPECT_EQ(s.p90.readbackNs, 3 * 91u);
  EXPECT_EQ(s.median.uploadNs, 6 * 51u);
  EXPECT_EQ(s.p90.launchNs, 7 * 91u);
  EXPECT_EQ(s.median.syncNs, 8 * 51u);
}

TEST(RoundTripLog, KeepsOnlyTheMostRecent) {
  RoundTripLog log;
  // A slow start (model load) followed by a full ring of steady samples.
  for (int i = 0; i < 500; ++i)
    log.add(sample(1000000));
  for (size_t i = 0; i < RoundTripLog::kCapacity; ++i)
    log.add(sample(7));
  RoundTripLog::Summary s = log.summary();
  EXPECT_EQ(s.count, RoundTripLog::kCapacity);
  EXPECT_EQ(s.median.gapNs, 7u);
  EXPECT_EQ(s.p90.replayNs, 14u) << "the slow start has left the ring";
}
