#include "rc/server/budget_table.h"
#include "rc/server/tenant_quotas.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::server {

// The file's layout: a header, the budgets, then `holders` rows of one
// counter per budget. Atomics of 8 bytes are lock-free here, so they work
// across processes that map the same pages.
struct BudgetTable::Header {
  uint64_t magic;
  uint32_t budgets;
  uint32_t holders;
};

struct BudgetTable::Entry {
  char name[96];
  char what[160];
  char source[288];            // a quota's source names its file
  std::atomic<uint64_t> total; // a reload may change it (setTotal)
  std::atomic<uint64_t> used;
};

namespace {
constexpr uint64_t kMagic = 0x3174656764756272ull; // "rbudget1"
static_assert(std::atomic<uint64_t>::is_always_lock_free);
constexpr size_t kHeaderBytes = 16, kEntryBytes = 560;

size_t tableBytes(size_t budgets, size_t holders) {
  return kHeaderBytes + budgets * kEntryBytes +
         holders * budgets * sizeof(uint64_t);
}

void copyText(char *to, size_t size, const std::string &from) {
  size_t n = std::min(from.size(), size - 1);
  std::memcpy(to, from.data(), n);
  to[n] = 0;
}
} // namespace

BudgetTable::BudgetTable(int fd, void *base, size_t bytes, int holder)
    : fd_(fd), base_(base), bytes_(bytes), holder_(holder) {}

BudgetTable::~BudgetTable() {
  munmap(base_, bytes_);
  close(fd_);
}

BudgetTable::Header &BudgetTable::header() const {
  return *static_cast<Header *>(base_);
}

BudgetTable::Entry &BudgetTable::entry(size_t i) const {
  return reinterpret_cast<Entry *>(static_cast<char *>(base_) +
                                   sizeof(Header))[i];
}

std::atomic<uint64_t> &BudgetTable::held(int holder, size_t i) const {
  auto *rows =
      reinterpret_cast<std::atomic<uint64_t> *>(&entry(header().budgets));
  return rows[size_t(holder) * header().budgets + i];
}

int BudgetTable::holders() const { return int(header().holders); }

std::unique_ptr<BudgetTable>
BudgetTable::create(const std::vector<BudgetSpec> &specs, int holders,
                    std::string *error) {
  static_assert(sizeof(Header) == kHeaderBytes && sizeof(Entry) == kEntryBytes,
                "tableBytes() counts these sizes");
  const size_t bytes = tableBytes(specs.size(), size_t(holders));
  int fd = memfd_create("rc-server-budgets", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, off_t(bytes)) != 0) {
    *error =
        std::string("cannot make the budget table: ") + std::strerror(errno);
    if (fd >= 0)
      close(fd);
    return nullptr;
  }
  void *base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    *error =
        std::string("cannot map the budget table: ") + std::strerror(errno);
    close(fd);
    return nullptr;
  }
  std::unique_ptr<BudgetTable> table(new BudgetTable(fd, base, bytes, 0));
  Header &h = table->header();
  h.magic = kMagic;
  h.budgets = uint32_t(specs.size());
  h.holders = uint32_t(holders);
  for (size_t i = 0; i < specs.size(); ++i) {
    Entry *e = new (&table->entry(i)) Entry{};
    copyText(e->name, sizeof e->name, specs[i].name);
    copyText(e->what, sizeof e->what, specs[i].what);
    copyText(e->source, sizeof e->source, specs[i].source);
    e->total = specs[i].total;
    for (int r = 0; r < holders; ++r)
      new (&table->held(r, i)) std::atomic<uint64_t>(0);
  }
  return table;
}

std::unique_ptr<BudgetTable> BudgetTable::attach(int fd, int holder,
                                                 std::string *error) {
  struct stat st{};
  Header h{};
  if (fstat(fd, &st) != 0 || size_t(st.st_size) < sizeof h ||
      pread(fd, &h, sizeof h, 0) != ssize_t(sizeof h) || h.magic != kMagic ||
      size_t(st.st_size) != tableBytes(h.budgets, h.holders) || holder < 0 ||
      uint32_t(holder) >= h.holders) {
    *error = "file descriptor " + std::to_string(fd) +
             " is not a budget table with a row " + std::to_string(holder);
    return nullptr;
  }
  void *base = mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE,
                    MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    *error =
        std::string("cannot map the budget table: ") + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<BudgetTable>(
      new BudgetTable(fd, base, size_t(st.st_size), holder));
}

std::unique_ptr<ByteBudget> BudgetTable::budget(const std::string &name) const {
  for (size_t i = 0; i < header().budgets; ++i) {
    Entry &e = entry(i);
    if (name == e.name)
      return std::make_unique<ByteBudget>(
          &e.total, e.what, e.source, &e.used, &held(holder_, i),
          std::string(e.name).rfind(kTenantBudgetPrefix, 0) == 0);
  }
  return nullptr;
}

bool BudgetTable::setTotal(const std::string &name, uint64_t total) {
  for (size_t i = 0; i < header().budgets; ++i)
    if (name == entry(i).name) {
      entry(i).total = total;
      return true;
    }
  return false;
}

std::vector<BudgetTable::Usage> BudgetTable::usage() const {
  std::vector<Usage> out;
  for (size_t i = 0; i < header().budgets; ++i) {
    const Entry &e = entry(i);
    out.push_back({std::string(e.name, strnlen(e.name, sizeof e.name)), e.total,
                   e.used.load(std::memory_order_relaxed)});
  }
  return out;
}

void BudgetTable::releaseHolder(int holder) {
  if (holder < 0 || uint32_t(holder) >= header().holders)
    return;
  for (size_t i = 0; i < header().budgets; ++i)
    if (uint64_t bytes = held(holder, i).exchange(0))
      entry(i).used.fetch_sub(bytes);
}

std::vector<BudgetSpec> serverBudgetSpecs(const ServerLimits &limits,
                                          const TenantQuotas *quotas,
                                          const std::vector<auth::Key> &keys) {
  std::vector<BudgetSpec> specs = ServerBudgets::specs(limits);
  if (!quotas)
    return specs;
  for (BudgetSpec &spec : quotas->budgetSpecs(keys))
    specs.push_back(std::move(spec));
  // Every tenant gets both budgets, unbounded where its quota sets none, so
  // that a reload can bound them later (setTotal) and the metrics endpoint
  // shows every tenant's memory.
  for (const auth::Key &key : keys)
    for (bool device : {true, false}) {
      std::string name =
          device ? tenantDeviceBudget(key.id) : tenantPinnedBudget(key.id);
      bool made = false;
      for (const BudgetSpec &s : specs)
        made = made || s.name == name;
      if (!made)
        specs.push_back({name, UINT64_MAX,
                         "tenant '" + key.id + "''s " +
                             (device ? "device memory" : "pinned host memory"),
                         "no quota in " + quotas->file()});
    }
  return specs;
}

} // namespace rc::server
