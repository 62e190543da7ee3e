// rc-cache: what rc-server's content cache holds for this client's
// namespace (its tenant), dropping chunks of it, and warming it with a
// file (docs/server-internals/content-cache.md, "Content cache"). A client
// program like any other: it reaches the server named by RC_SERVER (and
// RC_AUTH_KEY_FILE) through the remote-clang runtime.
#include "gguf_tensors.h"
#include "rc/env_reader.h"

#include <cuda_runtime_api.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" cudaError_t __rc_cache_control(int evict, const char *const *hashes,
                                          size_t count, char **json);

namespace {

int usage() {
  std::fprintf(
      stderr,
      "usage: rc-cache list [--json]      chunks of this client's namespace\n"
      "       rc-cache report             their count and bytes\n"
      "       rc-cache evict [HASH...]    drop the chunks named (all of them "
      "with none)\n"
      "       rc-cache preload [--whole] FILE...\n"
      "                                   upload each file once: a GGUF "
      "model\n"
      "                                   tensor by tensor, as llama.cpp "
      "loads it;\n"
      "                                   any other file (or --whole) as "
      "one upload\n"
      "The server is RC_SERVER's (and RC_AUTH_KEY_FILE's key), as for any "
      "remote-clang program.\n");
  return 2;
}

// The server's answer, or null after printing why.
char *control(bool evict, const std::vector<const char *> &hashes) {
  char *json = nullptr;
  cudaError_t err =
      __rc_cache_control(evict, hashes.data(), hashes.size(), &json);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "rc-cache: %s (%s)\n", cudaGetErrorName(err),
                 cudaGetErrorString(err));
    return nullptr;
  }
  return json;
}

// The number after "name": in the server's JSON (0 if absent).
uint64_t field(const char *json, const char *name) {
  std::string key = std::string("\"") + name + "\": ";
  const char *at = std::strstr(json, key.c_str());
  return at ? std::strtoull(at + key.size(), nullptr, 10) : 0;
}

void printTable(const char *json) {
  std::printf("%-32s %12s %8s\n", "hash", "bytes", "hits");
  for (const char *p = json; (p = std::strstr(p, "{\"hash\": \""));) {
    p += 10;
    std::string hash(p, std::min<size_t>(32, std::strlen(p)));
    std::printf("%-32s %12" PRIu64 " %8" PRIu64 "\n", hash.c_str(),
                field(p, "size"), field(p, "hits"));
  }
}

void printReport(const char *json) {
  // The pool's size and use are the operator's (rc-server --metrics): they
  // move with other tenants' uploads.
  std::printf("%" PRIu64 " chunks, %.1f MiB in this namespace, chunks of "
              "%.1f MiB\n",
              field(json, "chunks_held"), field(json, "bytes_held") / 1048576.0,
              field(json, "chunk_bytes") / 1048576.0);
}

// A file mapped for reading, unmapped when it goes.
class MappedFile {
public:
  bool open(const char *path) {
    int fd = ::open(path, O_RDONLY);
    struct stat st{};
    if (fd < 0 || fstat(fd, &st) != 0) {
      std::fprintf(stderr, "rc-cache: cannot open %s: %s\n", path,
                   std::strerror(errno));
      if (fd >= 0)
        close(fd);
      return false;
    }
    size_ = size_t(st.st_size);
    void *p =
        size_ ? mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
    close(fd);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "rc-cache: cannot map %s: %s\n", path,
                   std::strerror(errno));
      size_ = 0;
      return false;
    }
    data_ = static_cast<const uint8_t *>(p);
    return true;
  }
  ~MappedFile() {
    if (data_)
      munmap(const_cast<uint8_t *>(data_), size_);
  }
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

// A preload uploads in windows of this size, a multiple of the cache's
// chunk size (64 chunks of 4 MiB), through device memory of one window.
constexpr size_t kWindowBytes = size_t(256) << 20;

// Uploads [data, data + size) as an application's one upload of it would
// go: window by window, so its chunks are those of the one upload.
// `device` holds a window.
cudaError_t upload(void *device, const uint8_t *data, size_t size) {
  cudaError_t err = cudaSuccess;
  for (size_t off = 0; err == cudaSuccess && off < size; off += kWindowBytes)
    err = cudaMemcpy(device, data + off, std::min(kWindowBytes, size - off),
                     cudaMemcpyHostToDevice);
  return err;
}

// Each range of the file as an upload of its own; `gguf`: they are a
// model's tensors.
bool preloadRanges(const char *path, const MappedFile &file,
                   const std::vector<rc::tools::GgufTensor> &ranges,
                   bool gguf) {
  size_t largest = 0, total = 0;
  for (const auto &r : ranges) {
    largest = std::max<size_t>(largest, r.size);
    total += r.size;
  }
  void *device = nullptr;
  cudaError_t err = largest
                        ? cudaMalloc(&device, std::min(largest, kWindowBytes))
                        : cudaSuccess;
  for (size_t i = 0; err == cudaSuccess && i < ranges.size(); ++i)
    err = upload(device, file.data() + ranges[i].offset, ranges[i].size);
  if (device)
    cudaFree(device);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "rc-cache: uploading %s: %s\n", path,
                 cudaGetErrorName(err));
    return false;
  }
  if (gguf)
    std::printf("preloaded %s (%zu bytes in %zu GGUF tensors)\n", path, total,
                ranges.size());
  else
    std::printf("preloaded %s (%zu bytes)\n", path, total);
  return true;
}

// A GGUF model tensor by tensor (llama.cpp uploads each from its first
// byte, so those are the chunks its loads ask for); anything else, or with
// `whole`, as one upload from the file's start.
bool preload(const char *path, bool whole) {
  MappedFile file;
  if (!file.open(path))
    return false;
  std::vector<rc::tools::GgufTensor> ranges;
  bool gguf = !whole && rc::tools::looksLikeGguf(file.data(), file.size());
  if (!gguf) {
    ranges.push_back({"", 0, file.size()});
  } else {
    std::string why;
    if (!rc::tools::readGgufTensors(file.data(), file.size(), &ranges, &why)) {
      std::fprintf(stderr, "rc-cache: %s: %s\n", path, why.c_str());
      return false;
    }
  }
  return preloadRanges(path, file, ranges, gguf);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  // A preload goes through the cache even over shm, where uploads skip it
  // by default (RC_CACHE=auto); RC_CACHE=0 still means no cache at all. Read
  // by the rule the runtime reads it with, so a value the runtime would
  // refuse is refused here, not overwritten.
  rc::EnvReader env;
  std::string cache = env.choice("RC_CACHE", "auto", {"auto", "0", "1"});
  if (!env.ok()) {
    std::fprintf(stderr, "rc-cache: %s\n", env.error().c_str());
    return 2;
  }
  if (cache != "0")
    setenv("RC_CACHE", "1", 1);
  std::string cmd = argv[1];
  std::vector<const char *> rest(argv + 2, argv + argc);
  if (cmd == "list" || cmd == "report") {
    bool json = rest.size() == 1 && std::strcmp(rest[0], "--json") == 0;
    if (rest.size() > (cmd == "list" && json ? 1u : 0u))
      return usage();
    char *answer = control(false, {});
    if (!answer)
      return 1;
    if (json)
      std::printf("%s\n", answer);
    else if (cmd == "list")
      printTable(answer);
    else
      printReport(answer);
    std::free(answer);
    return 0;
  }
  if (cmd == "evict") {
    for (const char *h : rest)
      if (std::strlen(h) != 32 ||
          std::strspn(h, "0123456789abcdefABCDEF") != 32) {
        std::fprintf(stderr,
                     "rc-cache: '%s' is not a chunk's hash (32 hex "
                     "digits, as rc-cache list prints them)\n",
                     h);
        return 2;
      }
    char *answer = control(true, rest);
    if (!answer)
      return 1;
    std::printf("evicted %" PRIu64 " chunks\n", field(answer, "evicted"));
    printReport(answer);
    std::free(answer);
    return 0;
  }
  if (cmd == "preload") {
    bool whole = !rest.empty() && std::strcmp(rest[0], "--whole") == 0;
    if (whole)
      rest.erase(rest.begin());
    if (rest.empty())
      return usage();
    for (const char *path : rest)
      if (!preload(path, whole))
        return 1;
    return 0;
  }
  return usage();
}
