// rc-server --quotas: the file's rules (tenants are key ids, `*` for the
// rest, one line each, known settings only) and the ledger that holds each
// tenant to its bound.
#include "rc/server/tenant_quotas.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using rc::server::TenantLedger;
using rc::server::TenantQuotas;

namespace {

const std::vector<rc::auth::Key> kKeys = {{"alice", {}}, {"bob", {}}};

// A fresh file holding `text`, removed with this object.
struct QuotasFile {
  explicit QuotasFile(const std::string &text) {
    char name[] = "/tmp/rc-quotas-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path = name;
    std::ofstream(path) << text;
  }
  ~QuotasFile() { std::remove(path.c_str()); }
  std::string path;
};

TEST(TenantQuotasTest, OwnLineThenStarThenNoBound) {
  TenantQuotas q;
  std::string error;
  QuotasFile file("# comment\n\nalice sessions=2\n* sessions=1\n");
  ASSERT_TRUE(q.load(file.path, kKeys, &error)) << error;
  EXPECT_EQ(q.of("alice").sessions, 2);
  EXPECT_EQ(q.of("bob").sessions, 1);
  TenantQuotas none;
  QuotasFile three("alice sessions=3\n");
  ASSERT_TRUE(none.load(three.path, kKeys, &error));
  EXPECT_EQ(none.of("bob").sessions, -1);
}

TEST(TenantQuotasTest, MemorySizesAndTheirBudgets) {
  TenantQuotas q;
  std::string error;
  QuotasFile file("alice device=8GiB pinned=512MiB\n* device=1048576\n");
  ASSERT_TRUE(q.load(file.path, kKeys, &error)) << error;
  EXPECT_EQ(q.of("alice").deviceBytes, 8ull << 30);
  EXPECT_EQ(q.of("alice").pinnedBytes, 512ull << 20);
  EXPECT_EQ(q.of("bob").deviceBytes, 1ull << 20);
  EXPECT_EQ(q.of("bob").pinnedBytes, UINT64_MAX);
  EXPECT_FALSE(q.of("bob").streamPriority.has_value());
  // One budget per bound: bob (by `*`) has no pinned one.
  std::vector<rc::server::BudgetSpec> specs = q.budgetSpecs(kKeys);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].name, rc::server::tenantDeviceBudget("alice"));
  EXPECT_EQ(specs[1].name, rc::server::tenantPinnedBudget("alice"));
  EXPECT_EQ(specs[1].total, 512ull << 20);
  EXPECT_EQ(specs[2].name, rc::server::tenantDeviceBudget("bob"));
  EXPECT_EQ(specs[2].source, "its quota device=1048576 in " + file.path);
}

TEST(TenantQuotasTest, StreamPriorities) {
  TenantQuotas q;
  std::string error;
  QuotasFile file("alice priority=high\n* priority=normal\n");
  ASSERT_TRUE(q.load(file.path, kKeys, &error)) << error;
  EXPECT_EQ(q.of("alice").streamPriority, rc::server::kGreatestStreamPriority);
  EXPECT_EQ(q.of("bob").streamPriority, rc::server::kDefaultStreamPriority);
}

TEST(TenantQuotasTest, ShareOfTheSms) {
  TenantQuotas q;
  std::string error;
  QuotasFile file("alice sm=25\n");
  ASSERT_TRUE(q.load(file.path, kKeys, &error)) << error;
  EXPECT_EQ(q.of("alice").smPercent, 25);
  EXPECT_EQ(q.of("bob").smPercent, 0);
}

TEST(TenantQuotasTest, MistakesAreRefusedNamingTheLine) {
  struct Case {
    const char *text, *message;
  } cases[] = {
      {"carol sessions=1\n", "line 1: 'carol' is not the id of a key"},
      {"alice sessions=1\nalice sessions=2\n", "line 2: a second line"},
      {"alice memory=1\n", "unknown setting 'memory'"},
      {"alice device=1XB\n", "device must be a size"},
      {"alice device=-1\n", "device must be a size"},
      {"alice pinned=MiB\n", "pinned must be a size"},
      {"alice pinned=2048TiB\n", "pinned must be a size"},
      {"alice priority=urgent\n", "priority must be high or normal"},
      {"alice sessions=-1\n", "sessions must be a count"},
      {"alice sessions=x\n", "sessions must be a count"},
      {"alice sessions\n", "sessions must be a count"},
      {"alice sm=0\n", "sm must be a percentage from 1 to 100"},
      {"alice sm=101\n", "sm must be a percentage from 1 to 100"},
      {"alice sm=50%\n", "sm must be a percentage from 1 to 100"},
  };
  for (const Case &c : cases) {
    TenantQuotas q;
    std::string error;
    QuotasFile file(c.text);
    EXPECT_FALSE(q.load(file.path, kKeys, &error)) << c.text;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
    EXPECT_NE(error.find(file.path), std::string::npos) << error;
  }
  TenantQuotas q;
  std::string error;
  EXPECT_FALSE(q.load("/nonexistent/quotas", kKeys, &error));
  EXPECT_NE(error.find("/nonexistent/quotas"), std::string::npos);
}

TEST(TenantLedgerTest, EachTenantIsHeldToItsOwnBound) {
  TenantQuotas q;
  std::string error;
  QuotasFile file("alice sessions=2\n* sessions=0\n");
  ASSERT_TRUE(q.load(file.path, kKeys, &error));
  TenantLedger ledger(std::move(q));
  std::string why;
  EXPECT_TRUE(ledger.openSession("alice", &why));
  EXPECT_TRUE(ledger.openSession("alice", &why));
  EXPECT_FALSE(ledger.openSession("alice", &why));
  EXPECT_NE(why.find("tenant 'alice' has 2 session(s) open"), std::string::npos)
      << why;
  EXPECT_NE(why.find("sessions=2"), std::string::npos) << why;
  EXPECT_FALSE(ledger.openSession("bob", &why)) << "'*' gives bob none";
  ledger.closeSession("alice");
  EXPECT_EQ(ledger.sessions("alice"), 1);
  EXPECT_TRUE(ledger.openSession("alice", &why)) << why;
}

} // namespace
