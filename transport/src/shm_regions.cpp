#include "shm_regions.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace rc::transport::detail {

namespace {
// The start of libfabric 1.17's struct smr_region (include/ofi_shm.h): what
// we read to recognise a region and find its lock.
struct SmrRegionHead {
  uint8_t version;
  uint8_t resv;
  uint16_t flags;
  int pid;
  uint8_t cmaCapPeer;
  uint8_t cmaCapSelf;
  uint32_t maxSarBufPerPeer;
  void *baseAddr;
  pthread_spinlock_t lock;
  int32_t signal; // ofi_atomic32_t: set by a poster, cleared by progress
};
constexpr uint8_t kSmrVersion = 4; // SMR_VERSION in 1.17
static_assert(offsetof(SmrRegionHead, lock) == 24 &&
                  offsetof(SmrRegionHead, signal) == 28,
              "libfabric 1.17 layout");

const char kShmDir[] = "/dev/shm/";

// "PID:UID:INDEX" with decimal parts: *pid and *uid.
bool parseRegionName(const char *name, uint32_t *pid, uint32_t *uid) {
  unsigned long parts[3];
  const char *p = name;
  for (int i = 0; i < 3; ++i) {
    char *end = nullptr;
    if (*p < '0' || *p > '9')
      return false;
    errno = 0;
    parts[i] = std::strtoul(p, &end, 10);
    if (errno || *end != (i < 2 ? ':' : '\0'))
      return false;
    p = end + (i < 2);
  }
  *pid = uint32_t(parts[0]);
  *uid = uint32_t(parts[1]);
  return parts[0] > 0 && parts[0] == *pid && parts[1] == *uid;
}

// Removes /dev/shm/NAME if it is ours and `wanted` says so for its pid.
template <class Wanted> int sweep(Wanted wanted) {
  int removed = 0;
  DIR *d = opendir(kShmDir);
  if (!d)
    return 0;
  const uint32_t me = uint32_t(getuid());
  while (dirent *e = readdir(d)) {
    uint32_t pid, uid;
    if (!parseRegionName(e->d_name, &pid, &uid) || uid != me || !wanted(pid))
      continue;
    std::string path = std::string(kShmDir) + e->d_name;
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && st.st_uid == me &&
        S_ISREG(st.st_mode) && unlink(path.c_str()) == 0)
      ++removed;
  }
  closedir(d);
  return removed;
}
} // namespace

bool processGone(uint32_t pid) {
  if (pid == 0)
    return false;
  if (kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH)
    return true;
  // kill(pid, 0) succeeds for zombies: also look at the state in /proc.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return false;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() &&
         (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

int removeShmRegionsOf(uint32_t pid) {
  if (!processGone(pid))
    return 0;
  return sweep([pid](uint32_t p) { return p == pid; });
}

int removeStaleShmRegions() {
  const uint32_t self = uint32_t(getpid());
  return sweep([self](uint32_t p) { return p != self && processGone(p); });
}

std::string shmRegionName(const std::string &address) {
  std::string a = address.c_str(); // up to the terminating NUL
  const std::string scheme = "fi_shm://";
  return a.compare(0, scheme.size(), scheme) == 0 ? a.substr(scheme.size()) : a;
}

RegionLock RegionLock::find(const std::string &regionName, uint32_t ownerPid) {
  RegionLock found;
  std::string name = shmRegionName(regionName);
  if (name.empty() || name.find('/') != std::string::npos)
    return found;
  const std::string path = std::string(kShmDir) + name;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // "start-end perms offset dev inode   PATH[ (deleted)]"
    size_t at = line.find(path);
    if (at == std::string::npos)
      continue;
    std::string rest = line.substr(at + path.size());
    if (!rest.empty() && rest != " (deleted)")
      continue; // a longer name that starts the same
    unsigned long start = std::strtoul(line.c_str(), nullptr, 16);
    if (line.find(" 00000000 ") == std::string::npos || !start)
      continue; // not the mapping of the region's first page
    auto *head = reinterpret_cast<SmrRegionHead *>(start);
    if (head->version != kSmrVersion || uint32_t(head->pid) != ownerPid)
      continue;
    found.lock_ = &head->lock;
    found.signal_ = &head->signal;
    break;
  }
  return found;
}

bool RegionLock::taken() const {
  // glibc's own word for a free lock (x86-64: 1, taken counts down).
  static const int freeValue = [] {
    pthread_spinlock_t l;
    pthread_spin_init(&l, PTHREAD_PROCESS_SHARED);
    int v = l;
    pthread_spin_destroy(&l);
    return v;
  }();
  return lock_ && *lock_ != freeValue; // a volatile read
}

void RegionLock::take() {
  if (!lock_)
    return;
  pthread_spin_lock(lock_);
  __atomic_store_n(signal_, 1, __ATOMIC_RELEASE);
}

void RegionLock::release() {
  if (lock_)
    pthread_spin_unlock(lock_);
}

} // namespace rc::transport::detail
