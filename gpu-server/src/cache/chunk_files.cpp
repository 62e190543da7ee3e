#include "rc/server/chunk_files.h"

#include "rc/hex.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace rc::server {

namespace {
constexpr const char *kSpacePrefix = "ns-";

bool readAll(int fd, uint8_t *into, uint64_t size) {
  for (uint64_t done = 0; done < size;) {
    ssize_t n = pread(fd, into + done, size - done, off_t(done));
    if (n <= 0)
      return false;
    done += uint64_t(n);
  }
  return true;
}

bool writeAll(int fd, const uint8_t *data, uint64_t size) {
  for (uint64_t done = 0; done < size;) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0)
      return false;
    done += uint64_t(n);
  }
  return true;
}

// "<32 hex digits>-<size>": a chunk file's name, else false.
bool parseChunkName(const std::string &name, ContentHash *hash,
                    uint64_t *size) {
  if (name.size() < 34 || name[32] != '-' ||
      !ContentHash::parse(name.substr(0, 32), hash))
    return false;
  std::string digits = name.substr(33);
  if (digits.empty() || digits.size() > 15 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *size = std::stoull(digits);
  return *size > 0;
}
} // namespace

std::string ChunkFiles::dirOf(const std::string &space) const {
  return dir_ + "/" + kSpacePrefix +
         hexBytes(reinterpret_cast<const uint8_t *>(space.data()),
                  space.size());
}

std::string ChunkFiles::pathOf(const Name &n) const {
  return dirOf(n.space) + "/" + n.hash.hex() + "-" + std::to_string(n.size);
}

bool ChunkFiles::open(const std::string &dir, uint64_t maxBytes,
                      std::string *why) {
  dir_ = dir;
  maxBytes_ = maxBytes;
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *why = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  DIR *top = opendir(dir.c_str());
  if (!top) {
    *why = "cannot read " + dir + ": " + std::strerror(errno);
    return false;
  }
  // What an earlier server left, oldest first into the LRU list's back.
  std::vector<std::pair<int64_t, Name>> found;
  while (dirent *d = readdir(top)) {
    std::string sub = d->d_name;
    std::vector<uint8_t> space;
    if (sub.rfind(kSpacePrefix, 0) != 0 ||
        !parseHexBytes(sub.substr(3), &space))
      continue;
    std::string spaceDir = dir + "/" + sub;
    DIR *files = opendir(spaceDir.c_str());
    if (!files)
      continue;
    while (dirent *f = readdir(files)) {
      Name n{std::string(space.begin(), space.end()), {}, 0};
      struct stat st{};
      if (!parseChunkName(f->d_name, &n.hash, &n.size) ||
          stat((spaceDir + "/" + f->d_name).c_str(), &st) != 0 ||
          !S_ISREG(st.st_mode) || uint64_t(st.st_size) != n.size)
        continue;
      found.push_back({int64_t(st.st_mtime), n});
    }
    closedir(files);
  }
  closedir(top);
  std::sort(found.begin(), found.end(),
            [](const auto &a, const auto &b) { return a.first > b.first; });
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto &f : found) {
    lru_.push_back(f.second);
    index_[f.second] = std::prev(lru_.end());
    bytes_ += f.second.size;
  }
  return true;
}

bool ChunkFiles::has(const std::string &space, const ContentHash &hash,
                     uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_.count(Name{space, hash, size}) != 0;
}

bool ChunkFiles::read(const std::string &space, const ContentHash &hash,
                      uint64_t size, uint8_t *into) {
  Name n{space, hash, size};
  int fd = ::open(pathOf(n).c_str(), O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && readAll(fd, into, size);
  if (fd >= 0)
    close(fd);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(n);
  if (it == index_.end())
    return false;
  if (!ok) {
    forgetLocked(it);
    return false;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  return true;
}

bool ChunkFiles::write(const std::string &space, const ContentHash &hash,
                       uint64_t size, const uint8_t *data) {
  Name n{space, hash, size};
  if (size > maxBytes_ || has(space, hash, size))
    return false;
  std::string spaceDir = dirOf(space);
  if (mkdir(spaceDir.c_str(), 0700) != 0 && errno != EEXIST)
    return false;
  std::string path = pathOf(n), temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return false;
  bool ok = writeAll(fd, data, size);
  ok = close(fd) == 0 && ok && rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) {
    unlink(temp.c_str());
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (index_.count(n))
    return true;
  lru_.push_front(n);
  index_[n] = lru_.begin();
  bytes_ += size;
  while (bytes_ > maxBytes_ && !lru_.empty()) {
    Name oldest = lru_.back();
    unlink(pathOf(oldest).c_str());
    forgetLocked(index_.find(oldest));
  }
  return true;
}

void ChunkFiles::remove(const std::string &space, const ContentHash &hash,
                        uint64_t size) {
  Name n{space, hash, size};
  unlink(pathOf(n).c_str());
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(n);
  if (it != index_.end())
    forgetLocked(it);
}

size_t ChunkFiles::evict(const std::string &space,
                         const std::vector<ContentHash> &hashes) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t removed = 0;
  for (auto it = index_.begin(); it != index_.end();) {
    auto next = std::next(it);
    const Name &n = it->first;
    if (n.space == space &&
        (hashes.empty() ||
         std::find(hashes.begin(), hashes.end(), n.hash) != hashes.end())) {
      unlink(pathOf(n).c_str());
      forgetLocked(it);
      ++removed;
    }
    it = next;
  }
  return removed;
}

void ChunkFiles::forgetLocked(
    std::map<Name, std::list<Name>::iterator>::iterator it) {
  bytes_ -= it->first.size;
  lru_.erase(it->second);
  index_.erase(it);
}

uint64_t ChunkFiles::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

size_t ChunkFiles::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_.size();
}

} // namespace rc::server
