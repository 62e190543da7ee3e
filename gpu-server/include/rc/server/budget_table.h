// rc-server's byte budgets in shared memory, so that with --isolation
// process every worker draws from the same counts: the totals all sessions
// share (RC_SERVER_REPLY_TOTAL_MIB, RC_SERVER_PINNED_TOTAL_MIB) and each
// tenant's memory quotas (docs/server-isolation.md, "Tenants and quotas").
// Without isolation the one process makes a table for itself.
//
// The supervisor creates the table, before any worker, and hands each
// worker its file descriptor and a holder row of its own. A worker's
// charges are counted in the budget and in its row, so that when the
// worker ends, however it ends, the supervisor gives back what it still
// held (releaseHolder) and no budget leaks.
#ifndef RC_SERVER_BUDGET_TABLE_H
#define RC_SERVER_BUDGET_TABLE_H

#include "rc/auth/key_file.h"
#include "rc/server/limits.h"
#include "rc/server/tenant_quotas.h"

#include <memory>
#include <string>
#include <vector>

namespace rc::server {

class BudgetTable {
public:
  // A table of `specs` (names unique) with `holders` rows, in a memory file
  // that attach() can map in another process; row 0 is this process's.
  static std::unique_ptr<BudgetTable>
  create(const std::vector<BudgetSpec> &specs, int holders, std::string *error);
  // The table behind `fd` (a file descriptor create()'s fd() was passed
  // as), charged through row `holder`.
  static std::unique_ptr<BudgetTable> attach(int fd, int holder,
                                             std::string *error);
  ~BudgetTable();
  BudgetTable(const BudgetTable &) = delete;
  BudgetTable &operator=(const BudgetTable &) = delete;

  int fd() const { return fd_; }
  int holders() const;
  // The budget called `name`, charging this process's row; null when the
  // table has no such budget.
  std::unique_ptr<ByteBudget> budget(const std::string &name) const;
  // Sets the bound of budget `name` (a reload of the quotas); false when
  // the table has no such budget. Takes after it see the new bound; what
  // is held already stays held.
  bool setTotal(const std::string &name, uint64_t total);
  // Every budget's name, bound and what all holders use of it now.
  struct Usage {
    std::string name;
    uint64_t total = 0, used = 0;
  };
  std::vector<Usage> usage() const;
  // Gives back what row `holder` holds of every budget, and clears it (its
  // process has ended).
  void releaseHolder(int holder);

private:
  struct Header;
  struct Entry;
  BudgetTable(int fd, void *base, size_t bytes, int holder);
  Header &header() const;
  Entry &entry(size_t i) const;
  std::atomic<uint64_t> &held(int holder, size_t i) const;

  int fd_;
  void *base_;
  size_t bytes_;
  int holder_;
};

// Every budget of an rc-server: ServerBudgets::specs, then each tenant's
// memory quotas of `quotas` (null: none).
std::vector<BudgetSpec> serverBudgetSpecs(const ServerLimits &limits,
                                          const TenantQuotas *quotas,
                                          const std::vector<auth::Key> &keys);

} // namespace rc::server

#endif
