#include "rc/server/tenant_quotas.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rc::server {

namespace {
// The limit of a count such as sessions=N.
constexpr long kMaxCount = 1 << 20;

} // namespace

bool parseSize(const std::string &text, uint64_t *bytes) {
  static const struct {
    const char *suffix;
    int shift;
  } kUnits[] = {{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"", 0}};
  for (const auto &unit : kUnits) {
    size_t n = std::strlen(unit.suffix);
    if (text.size() <= n || text.compare(text.size() - n, n, unit.suffix))
      continue;
    std::string digits = text.substr(0, text.size() - n);
    if (digits.find_first_not_of("0123456789") != std::string::npos ||
        digits.size() > 15)
      return false;
    uint64_t value = std::stoull(digits);
    if (value > (uint64_t(1) << 50) >> unit.shift)
      return false;
    *bytes = value << unit.shift;
    return true;
  }
  return false;
}

std::string tenantDeviceBudget(const std::string &tenant) {
  return kTenantBudgetPrefix + tenant + "/device";
}

std::string tenantPinnedBudget(const std::string &tenant) {
  return kTenantBudgetPrefix + tenant + "/pinned";
}

TenantQuotas::TenantQuotas() : shared_(std::make_shared<Shared>()) {
  shared_->table = std::make_shared<const Table>();
}

std::shared_ptr<const TenantQuotas::Table> TenantQuotas::table() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->table;
}

bool TenantQuotas::load(const std::string &path,
                        const std::vector<auth::Key> &keys,
                        std::string *error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read the quotas file " + path;
    return false;
  }
  auto fresh = std::make_shared<Table>();
  fresh->path = path;
  std::map<std::string, TenantQuota> &quotas = fresh->quotas;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    auto fail = [&](const std::string &why) {
      *error = path + " line " + std::to_string(number) + ": " + why;
      return false;
    };
    std::istringstream words(line);
    std::string tenant;
    if (!(words >> tenant) || tenant[0] == '#')
      continue;
    bool known = tenant == "*";
    for (const auth::Key &k : keys)
      known = known || k.id == tenant;
    if (!known)
      return fail("'" + tenant +
                  "' is not the id of a key of --auth-key-file (tenants are "
                  "key ids; '*' is every other tenant)");
    if (quotas.count(tenant))
      return fail("a second line for '" + tenant + "'");
    TenantQuota quota;
    std::string setting;
    while (words >> setting) {
      size_t eq = setting.find('=');
      std::string name = setting.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : setting.substr(eq + 1);
      if (name == "sessions") {
        char *end = nullptr;
        long n = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end || n < 0 || n > kMaxCount)
          return fail("sessions must be a count from 0 to " +
                      std::to_string(kMaxCount) + ", got '" + value + "'");
        quota.sessions = int(n);
      } else if (name == "device" || name == "pinned") {
        uint64_t bytes = 0;
        if (!parseSize(value, &bytes))
          return fail(name +
                      " must be a size such as 8GiB, 512MiB or a count "
                      "of bytes (at most 1024TiB), got '" +
                      value + "'");
        (name == "device" ? quota.deviceBytes : quota.pinnedBytes) = bytes;
      } else if (name == "priority") {
        if (value != "high" && value != "normal")
          return fail("priority must be high or normal, got '" + value + "'");
        quota.streamPriority =
            value == "high" ? kGreatestStreamPriority : kDefaultStreamPriority;
      } else if (name == "sm") {
        char *end = nullptr;
        long n = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end || n < 1 || n > 100)
          return fail("sm must be a percentage from 1 to 100, got '" + value +
                      "'");
        quota.smPercent = int(n);
      } else {
        return fail("unknown setting '" + name +
                    "' (known: sessions, device, pinned, priority, sm)");
      }
    }
    quotas[tenant] = quota;
  }
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->table = std::move(fresh);
  return true;
}

TenantQuota TenantQuotas::of(const std::string &tenant) const {
  std::shared_ptr<const Table> t = table();
  auto it = t->quotas.find(tenant);
  if (it == t->quotas.end())
    it = t->quotas.find("*");
  return it == t->quotas.end() ? TenantQuota{} : it->second;
}

bool TenantLedger::openSession(const std::string &tenant, std::string *why) {
  TenantQuota quota = quotas_.of(tenant);
  std::lock_guard<std::mutex> lock(mu_);
  int &open = sessions_[tenant];
  if (quota.sessions >= 0 && open >= quota.sessions) {
    *why = "tenant '" + tenant + "' has " + std::to_string(open) +
           " session(s) open, its quota (sessions=" +
           std::to_string(quota.sessions) + " in " + quotas_.file() +
           "); retry when one ends";
    return false;
  }
  ++open;
  return true;
}

void TenantLedger::closeSession(const std::string &tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(tenant);
  if (it != sessions_.end() && --it->second <= 0)
    sessions_.erase(it);
}

std::vector<BudgetSpec>
TenantQuotas::budgetSpecs(const std::vector<auth::Key> &keys) const {
  std::vector<BudgetSpec> specs;
  const std::string path = file();
  for (const auth::Key &key : keys) {
    TenantQuota quota = of(key.id);
    auto add = [&](const std::string &name, uint64_t bytes, const char *what,
                   const char *setting) {
      if (bytes != UINT64_MAX)
        specs.push_back({name, bytes, "tenant '" + key.id + "''s " + what,
                         std::string("its quota ") + setting + "=" +
                             std::to_string(bytes) + " in " + path});
    };
    add(tenantDeviceBudget(key.id), quota.deviceBytes, "device memory",
        "device");
    add(tenantPinnedBudget(key.id), quota.pinnedBytes, "pinned host memory",
        "pinned");
  }
  return specs;
}

int TenantLedger::sessions(const std::string &tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(tenant);
  return it == sessions_.end() ? 0 : it->second;
}

} // namespace rc::server
