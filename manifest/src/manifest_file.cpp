#include "rc/manifest_file.h"
#include "rc/kernel_id.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rc {

bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string *error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    if (error)
      *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  out.clear();
  // One allocation of the file's size (a 172 MB manifest grew by copies
  // before), then whatever a file that grew meanwhile still holds.
  struct stat st{};
  if (::fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
    out.resize(size_t(st.st_size));
  size_t got = out.empty() ? 0 : std::fread(out.data(), 1, out.size(), f);
  out.resize(got);
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    out.insert(out.end(), buf, buf + n);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad && error)
    *error = path + ": read error";
  return !bad;
}

bool writeFile(const std::string &path, const void *data, size_t size,
               std::string *error) {
  std::string tmp = path + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    if (error)
      *error = tmp + ": cannot create: " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(data, 1, size, f) == size;
  ok = (std::fclose(f) == 0) && ok;
  // Rename so a reader never sees a half-written manifest.
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (error)
      *error = path + ": cannot write: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

bool verifyManifestBytes(const uint8_t *data, size_t size, std::string *error) {
  if (size < 8 || !flatbuffers::BufferHasIdentifier(data, "RCMF")) {
    if (error)
      *error = "not a remote-clang manifest (missing RCMF identifier)";
    return false;
  }
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64,
                                 /*max_tables=*/100000000);
  if (!manifest::VerifyManifestBuffer(verifier)) {
    if (error)
      *error = "manifest is corrupt (flatbuffers verification failed)";
    return false;
  }
  // Every reader looks kernels and variables up by name in their module:
  // both must exist (rc-manifest verify indexed its modules with a
  // variable's module_index unchecked, found by the manifest fuzzer).
  const manifest::Manifest *m = manifest::GetManifest(data);
  uint32_t modules = m->modules() ? m->modules()->size() : 0;
  auto bad = [&](const char *what, uint64_t id, const flatbuffers::String *name,
                 uint32_t module) {
    if (error)
      *error = std::string(what) + " " + std::to_string(id) +
               (name ? " names module " + std::to_string(module) +
                           ", which does not exist"
                     : " has no name");
    return false;
  };
  if (m->kernels())
    for (const manifest::Kernel *k : *m->kernels())
      if (k->module_index() >= modules || !k->name())
        return bad("kernel", k->id(), k->name(), k->module_index());
  if (m->variables())
    for (const manifest::Variable *v : *m->variables())
      if (v->module_index() >= modules || !v->name())
        return bad("variable", v->id(), v->name(), v->module_index());
  return true;
}

namespace {

constexpr char kTrailerMagic[8] = {'R', 'C', 'M', 'H', 'A', 'S', 'H', '1'};

// The file mapped read-only, or null with *error set.
std::shared_ptr<const uint8_t> mapFile(const std::string &path, size_t *size,
                                       std::string *error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return nullptr;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file";
    ::close(fd);
    return nullptr;
  }
  *size = size_t(st.st_size);
  if (*size == 0) {
    *error = path + ": empty file, not a remote-clang manifest";
    ::close(fd);
    return nullptr;
  }
  void *p = ::mmap(nullptr, *size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    *error = path + ": cannot map: " + std::strerror(errno);
    return nullptr;
  }
  size_t mapped = *size;
  return std::shared_ptr<const uint8_t>(
      static_cast<const uint8_t *>(p), [mapped](const uint8_t *q) {
        ::munmap(const_cast<uint8_t *>(q), mapped);
      });
}

bool hasTrailer(const uint8_t *data, size_t size, uint64_t *recorded) {
  if (size < kManifestHashTrailer + 8)
    return false;
  const uint8_t *t = data + size - kManifestHashTrailer;
  if (std::memcmp(t, kTrailerMagic, sizeof kTrailerMagic) != 0)
    return false;
  uint64_t h = 0;
  for (int i = 7; i >= 0; --i)
    h = (h << 8) | t[8 + i];
  *recorded = h;
  return true;
}

} // namespace

void appendHashTrailer(std::vector<uint8_t> &flatbuffer) {
  uint64_t h = fnv1a64(flatbuffer.data(), flatbuffer.size());
  flatbuffer.insert(flatbuffer.end(), kTrailerMagic,
                    kTrailerMagic + sizeof kTrailerMagic);
  for (int i = 0; i < 8; ++i)
    flatbuffer.push_back(uint8_t(h >> (8 * i)));
}

bool loadManifest(const std::string &path, LoadedManifest &out,
                  std::string *error, ManifestHash how) {
  out.path = path;
  out.bytes.clear();
  out.mapping.reset();
  std::string why;
  uint64_t recorded = 0;
  bool trailer = false;
  if (how == ManifestHash::TrustRecorded) {
    // Mapped: a client pages in only the tables it reads. rc-server reads
    // its copies whole instead, so that a file rewritten in place while it
    // runs can neither change its manifests nor fault it.
    size_t size = 0;
    out.mapping = mapFile(path, &size, &why);
    if (!out.mapping) {
      if (error)
        *error = why;
      return false;
    }
    trailer = hasTrailer(out.mapping.get(), size, &recorded);
    out.mappedSize = trailer ? size - kManifestHashTrailer : size;
  } else {
    if (!readFile(path, out.bytes, error))
      return false;
    trailer = hasTrailer(out.bytes.data(), out.bytes.size(), &recorded);
    if (trailer)
      out.bytes.resize(out.bytes.size() - kManifestHashTrailer);
  }
  if (!verifyManifestBytes(out.data(), out.size(), &why)) {
    if (error)
      *error = path + ": " + why;
    out.mapping.reset();
    return false;
  }
  if (trailer && how == ManifestHash::TrustRecorded) {
    out.hash = recorded;
  } else {
    out.hash = fnv1a64(out.data(), out.size());
    if (trailer && out.hash != recorded) {
      if (error)
        *error = path + ": its contents differ from the hash rc-link recorded "
                        "in it (the file was changed after it was written)";
      out.mapping.reset();
      return false;
    }
  }
  out.root = manifest::GetManifest(out.data());
  return true;
}

const manifest::Kernel *findKernel(const manifest::Manifest &m, uint64_t id) {
  if (!m.kernels())
    return nullptr;
  // Merged manifests are sorted by id (the schema's key attribute).
  return m.kernels()->LookupByKey(id);
}

} // namespace rc
