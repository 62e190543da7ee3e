// rc-server's budget table (rc/server/budget_table.h): budgets several
// processes charge together, each through a row of its own, so that what a
// process held when it died goes back when its row is released.
#include "rc/server/budget_table.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using rc::server::BudgetSet;
using rc::server::BudgetSpec;
using rc::server::BudgetTable;
using rc::server::ByteBudget;

namespace {

std::vector<BudgetSpec> twoBudgets() {
  return {{"server/pinned", 100, "the pinned memory", "its test total"},
          {"tenant/a/device", 50, "tenant 'a''s device memory",
           "its quota device=50 in quotas"}};
}

TEST(BudgetTableTest, BudgetsAreFoundByNameAndRefuseWhatDoesNotFit) {
  std::string error;
  std::unique_ptr<BudgetTable> table =
      BudgetTable::create(twoBudgets(), 2, &error);
  ASSERT_TRUE(table) << error;
  EXPECT_EQ(table->holders(), 2);
  EXPECT_EQ(table->budget("tenant/b/device"), nullptr);
  std::unique_ptr<ByteBudget> device = table->budget("tenant/a/device");
  ASSERT_TRUE(device);
  EXPECT_EQ(device->total(), 50u);
  EXPECT_TRUE(device->take(30));
  EXPECT_FALSE(device->take(21));
  EXPECT_EQ(device->refusal(21), "21 more bytes do not fit tenant 'a''s "
                                 "device memory (30 of 50 bytes in use; its "
                                 "quota device=50 in quotas)");
  device->give(30);
  EXPECT_EQ(device->used(), 0u);
}

TEST(BudgetTableTest, ASetTakesFromAllItsBudgetsOrFromNone) {
  std::string error;
  std::unique_ptr<BudgetTable> table =
      BudgetTable::create(twoBudgets(), 1, &error);
  ASSERT_TRUE(table) << error;
  std::unique_ptr<ByteBudget> device = table->budget("tenant/a/device");
  std::unique_ptr<ByteBudget> pinned = table->budget("server/pinned");
  BudgetSet both{device.get(), nullptr, pinned.get()};
  std::string why;
  ASSERT_TRUE(pinned->take(60));
  EXPECT_FALSE(both.take(45, &why)); // the device budget has room, not pinned
  // A budget all tenants share names its bound, not what others hold.
  EXPECT_EQ(why, "45 more bytes do not fit the pinned memory (100 bytes; its "
                 "test total)");
  EXPECT_EQ(device->used(), 0u) << "what the set took was not given back";
  EXPECT_TRUE(both.take(40, &why));
  EXPECT_EQ(device->used(), 40u);
  EXPECT_EQ(pinned->used(), 100u);
  both.give(40);
  EXPECT_EQ(pinned->used(), 60u);
}

// A worker process charges through its row and dies without giving back;
// its supervisor's releaseHolder returns exactly what that row held.
TEST(BudgetTableTest, WhatADeadProcessHeldGoesBackWithItsRow) {
  std::string error;
  std::unique_ptr<BudgetTable> table =
      BudgetTable::create(twoBudgets(), 3, &error);
  ASSERT_TRUE(table) << error;
  std::unique_ptr<ByteBudget> ours = table->budget("tenant/a/device");
  ASSERT_TRUE(ours->take(10));
  pid_t child = fork();
  if (child == 0) {
    std::string e;
    std::unique_ptr<BudgetTable> attached =
        BudgetTable::attach(fcntl(table->fd(), F_DUPFD_CLOEXEC, 0), 2, &e);
    if (!attached)
      _exit(2);
    std::unique_ptr<ByteBudget> theirs = attached->budget("tenant/a/device");
    bool ok =
        theirs && theirs->take(25) && !theirs->take(16) && theirs->used() == 35;
    _exit(ok ? 0 : 1); // without giving back, as a crash would
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(ours->used(), 35u);
  table->releaseHolder(2);
  EXPECT_EQ(ours->used(), 10u);
  table->releaseHolder(2); // nothing more
  EXPECT_EQ(ours->used(), 10u);
}

TEST(BudgetTableTest, AttachRefusesWhatIsNotATableOrARowItHasNot) {
  std::string error;
  std::unique_ptr<BudgetTable> table =
      BudgetTable::create(twoBudgets(), 2, &error);
  ASSERT_TRUE(table) << error;
  EXPECT_EQ(BudgetTable::attach(dup(table->fd()), 2, &error), nullptr);
  EXPECT_NE(error.find("row 2"), std::string::npos) << error;
  int fd = memfd_create("not-a-table", 0);
  ASSERT_EQ(write(fd, "0123456789abcdef0123", 20), 20);
  EXPECT_EQ(BudgetTable::attach(fd, 0, &error), nullptr);
  close(fd);
}

} // namespace
