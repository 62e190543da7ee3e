// VmmTable: the rules by which a session's VMM commands may name only its
// own reservations, allocations and mappings, and by which mapped memory
// counts for the pointer checks (ExtTest.* drives the same through
// sessions).
#include "executor/vmm_table.h"

#include <gtest/gtest.h>

using rc::server::VmmTable;

namespace {

constexpr uint64_t kBase = 0x7f0000000000, kMiB = 1 << 20;

TEST(VmmTable, ReservationsAreMatchedExactlyAndContainRangesWhole) {
  VmmTable t;
  t.addReservation(kBase, 8 * kMiB);
  EXPECT_TRUE(t.isReservation(kBase, 8 * kMiB));
  EXPECT_FALSE(t.isReservation(kBase, 4 * kMiB)) << "a different size";
  EXPECT_FALSE(t.isReservation(kBase + kMiB, 7 * kMiB)) << "not its base";
  EXPECT_TRUE(t.insideOneReservation(kBase, 8 * kMiB));
  EXPECT_TRUE(t.insideOneReservation(kBase + 7 * kMiB, kMiB));
  EXPECT_FALSE(t.insideOneReservation(kBase + 7 * kMiB, 2 * kMiB));
  EXPECT_FALSE(t.insideOneReservation(kBase - 1, 2));
  EXPECT_FALSE(t.insideOneReservation(kBase + 8 * kMiB, 1)) << "at its end";
  EXPECT_FALSE(t.insideOneReservation(kBase + kMiB, UINT64_MAX))
      << "a size that wraps";
  t.removeReservation(kBase);
  EXPECT_FALSE(t.insideOneReservation(kBase, 1));
}

TEST(VmmTable, PhysicalAllocationsByHandle) {
  VmmTable t;
  EXPECT_EQ(t.physical(5), nullptr);
  t.addPhysical(5, VmmTable::Physical{0x99, 2 * kMiB, 1});
  ASSERT_NE(t.physical(5), nullptr);
  EXPECT_EQ(t.physical(5)->native, 0x99u);
  EXPECT_EQ(t.physical(5)->device, 1);
  t.removePhysical(5);
  EXPECT_EQ(t.physical(5), nullptr);
}

TEST(VmmTable, OverlapsAndTheFirstMappingInARange) {
  VmmTable t;
  t.addMapping(kBase + 2 * kMiB, 2 * kMiB, 0);
  uint64_t first = 0;
  EXPECT_TRUE(t.firstMappingIn(kBase, 8 * kMiB, &first));
  EXPECT_EQ(first, kBase + 2 * kMiB);
  EXPECT_FALSE(t.firstMappingIn(kBase, 2 * kMiB, &first)) << "ends before";
  EXPECT_TRUE(t.overlapsMapping(kBase + kMiB, 2 * kMiB)) << "runs into it";
  EXPECT_TRUE(t.overlapsMapping(kBase + 3 * kMiB, 4 * kMiB)) << "starts in";
  EXPECT_FALSE(t.overlapsMapping(kBase, 2 * kMiB)) << "ends at its base";
  EXPECT_FALSE(t.overlapsMapping(kBase + 4 * kMiB, kMiB)) << "starts at end";
}

TEST(VmmTable, WholeMappingsAreRunsOfEntireMappingsOnly) {
  VmmTable t;
  t.addMapping(kBase, 2 * kMiB, 0);
  t.addMapping(kBase + 2 * kMiB, kMiB, 0);
  std::vector<uint64_t> bases;
  EXPECT_TRUE(t.wholeMappings(kBase, 3 * kMiB, &bases));
  EXPECT_EQ(bases, (std::vector<uint64_t>{kBase, kBase + 2 * kMiB}));
  bases.clear();
  EXPECT_FALSE(t.wholeMappings(kBase, kMiB, &bases)) << "half a mapping";
  bases.clear();
  EXPECT_FALSE(t.wholeMappings(kBase, 4 * kMiB, &bases)) << "past the run";
  bases.clear();
  EXPECT_FALSE(t.wholeMappings(kBase + kMiB, 2 * kMiB, &bases)) << "mid";
  bases.clear();
  EXPECT_FALSE(t.wholeMappings(kBase, 0, &bases)) << "nothing";
}

TEST(VmmTable, OnlyAccessibleBackToBackMappingsContainARange) {
  VmmTable t;
  t.addMapping(kBase, 2 * kMiB, 1);
  t.addMapping(kBase + 2 * kMiB, 2 * kMiB, 1);
  int device = -1;
  EXPECT_FALSE(t.contains(kBase, 16, &device)) << "no access yet";
  t.enableAccess({kBase});
  EXPECT_TRUE(t.contains(kBase + 16, 64, &device));
  EXPECT_EQ(device, 1);
  EXPECT_FALSE(t.contains(kBase + 2 * kMiB - 8, 16, &device))
      << "straddles into a mapping without access";
  t.enableAccess({kBase + 2 * kMiB});
  EXPECT_TRUE(t.contains(kBase + 2 * kMiB - 8, 16, &device));
  EXPECT_TRUE(t.contains(kBase + 4 * kMiB, 0, &device)) << "one past the end";
  EXPECT_FALSE(t.contains(kBase + 4 * kMiB, 1, &device)) << "past the end";
  EXPECT_FALSE(t.contains(kBase - 1, 1, &device)) << "before the first";
  EXPECT_FALSE(t.contains(kBase, UINT64_MAX, &device)) << "a size that wraps";
  t.removeMappings({kBase + 2 * kMiB});
  EXPECT_FALSE(t.contains(kBase + 2 * kMiB - 8, 16, &device))
      << "the second mapping is gone";
}

} // namespace
