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
