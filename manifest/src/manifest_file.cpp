#include "rc/manifest_file.h"
#include "rc/kernel_id.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

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
  const manifest::Manifest *m = manifest::GetManifest(data);
  uint32_t modules = m->modules() ? m->modules()->size() : 0;
  if (m->kernels())
    for (const manifest::Kernel *k : *m->kernels())
      if (k->module_index() >= modules || !k->name()) {
        if (error)
          *error = "kernel " + std::to_string(k->id()) +
                   " names a module that does not exist";
        return false;
      }
  return true;
}

bool loadManifest(const std::string &path, LoadedManifest &out,
                  std::string *error) {
  out.path = path;
  if (!readFile(path, out.bytes, error))
    return false;
  std::string why;
  if (!verifyManifestBytes(out.bytes.data(), out.bytes.size(), &why)) {
    if (error)
      *error = path + ": " + why;
    return false;
  }
  out.hash = fnv1a64(out.bytes.data(), out.bytes.size());
  out.root = manifest::GetManifest(out.bytes.data());
  return true;
}

const manifest::Kernel *findKernel(const manifest::Manifest &m, uint64_t id) {
  if (!m.kernels())
    return nullptr;
  // Merged manifests are sorted by id (the schema's key attribute).
  return m.kernels()->LookupByKey(id);
}

} // namespace rc
