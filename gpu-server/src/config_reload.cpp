#include "config_reload.h"

namespace rc::server {

bool ConfigReload::run(std::string *summary, std::string *error) {
  std::vector<auth::Key> keys;
  if (!auth::loadKeyFile(keyFile_, &keys, error))
    return false;
  // Parsed into a copy first: a wrong quotas file changes nothing, keys
  // included.
  if (quotas_) {
    TenantQuotas check;
    if (!check.load(quotas_->file(), keys, error) ||
        !quotas_->load(quotas_->file(), keys, error))
      return false;
  }
  std::vector<std::string> removed = ring_.replace(keys);
  *summary =
      std::to_string(keys.size()) + (keys.size() == 1 ? " key" : " keys");
  if (!removed.empty()) {
    *summary += " (removed:";
    for (const std::string &id : removed)
      *summary += " " + id;
    *summary += ")";
  }
  if (quotas_) {
    *summary += "; quotas of " + quotas_->file();
    *summary += applyMemoryQuotas(keys);
  }
  return true;
}

std::string
ConfigReload::applyMemoryQuotas(const std::vector<auth::Key> &keys) {
  if (!table_)
    return "";
  std::string unapplied;
  for (const auth::Key &key : keys) {
    TenantQuota q = quotas_->of(key.id);
    bool device = table_->setTotal(tenantDeviceBudget(key.id), q.deviceBytes);
    bool pinned = table_->setTotal(tenantPinnedBudget(key.id), q.pinnedBytes);
    if (!device || !pinned)
      unapplied += (unapplied.empty() ? "" : ", ") + key.id;
  }
  return unapplied.empty()
             ? ""
             : "; memory quotas of keys added since start apply after a "
               "restart: " +
                   unapplied;
}

} // namespace rc::server
