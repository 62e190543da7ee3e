// Tenants and their quotas (docs/server-isolation.md, "Tenants and quotas"). A
// tenant is the id of a key of rc-server's key file: a client that proved it
// holds key K is tenant K. rc-server --quotas FILE bounds what each tenant may
// hold at once; a session past a bound is refused at its Hello, naming the
// tenant, the bound and the file.
//
// FILE holds one tenant a line, `TENANT key=value ...`; TENANT is a key id of
// the key file, or `*` for every tenant without a line of its own. Blank
// lines and lines starting with `#` are ignored. Keys:
//   sessions=N   sessions open at once (with --isolation process: worker
//                processes serving the tenant)
//   device=SIZE  device memory its sessions hold together (cudaMalloc and
//                its kin, driver VMM allocations, CUDA arrays)
//   pinned=SIZE  pinned host memory its sessions hold together (upload
//                rings, memory shared with clients over shm)
//   priority=high|normal  every stream its sessions create runs at the
//                GPU's greatest stream priority, or at the default one,
//                whatever the program asks (without it: as asked); a
//                busy GPU's SMs take blocks of higher-priority streams
//                first
//   sm=PERCENT   under MPS (docs/design/gpu-sharing.md), each session's
//                kernels use at most PERCENT (1 to 100) of the GPU's SMs
//                (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of its worker); with
//                device=SIZE, MPS also bounds each session's device
//                memory to SIZE (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT)
// SIZE is a count of bytes, or one with KiB, MiB, GiB or TiB after it.
// Memory quotas are budgets (rc/server/budget_table.h): a cudaMalloc past
// one fails with cudaErrorMemoryAllocation naming the tenant and the file.
#ifndef RC_SERVER_TENANT_QUOTAS_H
#define RC_SERVER_TENANT_QUOTAS_H

#include "rc/auth/key_file.h"
#include "rc/server/limits.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rc::server {

// "1073741824", "512MiB", "8GiB": false unless the whole text is a size
// (quotas, rc-server --cache).
bool parseSize(const std::string &text, uint64_t *bytes);

struct TenantQuota {
  int sessions = -1;                                           // -1: no bound
  uint64_t deviceBytes = UINT64_MAX, pinnedBytes = UINT64_MAX; // MAX: none
  std::optional<int> streamPriority; // none: as the program asks
  int smPercent = 0;                 // 0: no bound
};

// CUDA's stream priorities: lower numbers run first. The greatest is the
// driver's on current GPUs; it clamps any other to its own range.
constexpr int kDefaultStreamPriority = 0;
constexpr int kGreatestStreamPriority = -5;

// The names of a tenant's memory budgets in rc-server's BudgetTable.
// Every tenant's budget name starts so: its use is the tenant's own.
constexpr const char *kTenantBudgetPrefix = "tenant/";
std::string tenantDeviceBudget(const std::string &tenant);
std::string tenantPinnedBudget(const std::string &tenant);

// Copies of one TenantQuotas share its table: load() on any of them (a
// SIGHUP reload) changes what all of them answer, at once and whole.
class TenantQuotas {
public:
  TenantQuotas();
  // Reads FILE; every tenant it names must be the id of one of `keys`.
  // False with *error naming the file, the line and what is wrong; the
  // quotas answered before stay then.
  bool load(const std::string &path, const std::vector<auth::Key> &keys,
            std::string *error);
  // The tenant's own line, else `*`'s, else no bounds.
  TenantQuota of(const std::string &tenant) const;
  std::string file() const { return table()->path; }
  // The memory budgets of each of `keys`' tenants that has a bound.
  std::vector<BudgetSpec> budgetSpecs(const std::vector<auth::Key> &keys) const;

private:
  struct Table {
    std::string path;
    std::map<std::string, TenantQuota> quotas; // "*" included
  };
  struct Shared {
    std::mutex mutex;
    std::shared_ptr<const Table> table;
  };
  std::shared_ptr<const Table> table() const;
  std::shared_ptr<Shared> shared_;
};

// What each tenant holds now, against its quota.
class TenantLedger {
public:
  explicit TenantLedger(TenantQuotas quotas) : quotas_(std::move(quotas)) {}
  // Counts one more session of `tenant`; false with *why when that would
  // pass its quota.
  bool openSession(const std::string &tenant, std::string *why);
  void closeSession(const std::string &tenant);
  int sessions(const std::string &tenant) const;

private:
  const TenantQuotas quotas_;
  mutable std::mutex mu_;
  std::map<std::string, int> sessions_;
};

} // namespace rc::server

#endif
