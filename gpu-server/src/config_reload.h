// What SIGHUP changes in a running rc-server (docs/metrics.md,
// "Configuration and reload"): the keys of --auth-key-file and the quotas
// of --quotas, read again from the same files. Either both files read
// whole and right and everything changes at once, or nothing changes and
// the error says why. Sessions stay; what a removed key's live sessions
// do is the server's on_key_removed (ServerCore ends them with "end").
#ifndef RC_SERVER_CONFIG_RELOAD_H
#define RC_SERVER_CONFIG_RELOAD_H

#include "rc/server/budget_table.h"
#include "rc/server/key_ring.h"
#include "rc/server/tenant_quotas.h"

#include <string>

namespace rc::server {

class ConfigReload {
public:
  // `quotas` and `table` may be null (no --quotas).
  ConfigReload(std::string keyFile, KeyRing &ring, TenantQuotas *quotas,
               BudgetTable *table)
      : keyFile_(std::move(keyFile)), ring_(ring), quotas_(quotas),
        table_(table) {}

  // Reads both files again and applies them; *summary says what changed
  // ("2 keys (removed: bob); quotas of quotas.txt").
  bool run(std::string *summary, std::string *error);

private:
  // New bounds for every tenant budget of the table; names the tenants
  // whose quota cannot apply before a restart (keys added since start
  // have no budget of their own).
  std::string applyMemoryQuotas(const std::vector<auth::Key> &keys);

  const std::string keyFile_;
  KeyRing &ring_;
  TenantQuotas *quotas_;
  BudgetTable *table_;
};

} // namespace rc::server

#endif
