#include "build_identity.h"

#include "rc/build_id.h"
#include "rc/elf_sections.h"
#include "rc/fatbin.h"
#include "rc/kernel_names.h"
#include "rc/manifest_file.h"

#include <cstdio>

namespace rc::tools {

namespace {

// The module hashes of a linked binary: its .nv_fatbin is the objects'
// fatbins (remote stubs after rc-link embed) one after another, with zero
// padding up to each one's alignment.
bool binaryModuleHashes(const std::vector<uint8_t> &bytes,
                        std::vector<uint64_t> &hashes, std::string *error) {
  std::vector<ElfSection> sections;
  if (!readElfSections(bytes.data(), bytes.size(), sections, error))
    return false;
  const ElfSection *s = findSection(sections, ".nv_fatbin");
  if (!s || s->size == 0) {
    *error = "no .nv_fatbin section: no device code";
    return false;
  }
  const uint8_t *data = bytes.data() + s->offset;
  for (uint64_t at = 0; at < s->size;) {
    uint64_t size = fatbinSize(data + at, s->size - at);
    if (size == 0) {
      at += 8; // padding: fatbins are at least 8-byte aligned
      continue;
    }
    uint64_t hash;
    if (!readRemoteStub(data + at, size, &hash))
      hash = fatbinHash(data + at, size);
    hashes.push_back(hash);
    at += size;
  }
  return true;
}

bool printOne(const std::string &path) {
  std::vector<uint8_t> bytes;
  std::string err;
  auto fail = [&](const std::string &why) {
    std::fprintf(stderr, "rc-manifest: error: %s: %s\n", path.c_str(),
                 why.c_str());
    return false;
  };
  if (!readFile(path, bytes, &err))
    return fail(err);
  uint64_t id;
  if (isElf(bytes.data(), bytes.size())) {
    std::vector<uint64_t> hashes;
    if (!binaryModuleHashes(bytes, hashes, &err))
      return fail(err);
    id = buildId(hashes);
  } else {
    if (!verifyManifestBytes(bytes.data(), bytes.size(), &err))
      return fail(err);
    const manifest::Manifest &m = *manifest::GetManifest(bytes.data());
    id = buildIdOf(m);
    if (m.build_id() && m.build_id() != id)
      return fail("records build_id " + hexId(m.build_id()) +
                  " but its modules are build " + hexId(id));
  }
  if (id == 0)
    return fail("no device code");
  std::printf("%s: build %s\n", path.c_str(), hexId(id).c_str());
  return true;
}

} // namespace

bool printBuildIds(const std::vector<std::string> &files) {
  bool ok = true;
  for (const std::string &f : files)
    ok = printOne(f) && ok;
  return ok;
}

} // namespace rc::tools
