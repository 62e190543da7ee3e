// libFuzzer harness: a manifest file (`.rcm`) as every reader takes it:
// verification (rc::verifyManifestBytes), rc-server's registry (layouts
// checked, IDs indexed, kernel attributes for the Hello), the client
// runtime's kernel index, and `rc-manifest verify` against the fatbins'
// cubins. rc-server loads manifests an operator names; clients load the
// one beside their binary.
#include "manifests/kernel_index.h"
#include "rc/kernel_id.h"
#include "rc/manifest_file.h"
#include "rc/server/host_backend.h"
#include "rc/server/registry.h"
#include "verify.h"

#include <cstdio>
#include <memory>
#include <string>

namespace {

std::unique_ptr<rc::LoadedManifest> loaded(const uint8_t *data, size_t size) {
  auto m = std::make_unique<rc::LoadedManifest>();
  m->path = "fuzz.rcm";
  m->bytes.assign(data, data + size); // 16-byte aligned, as files are read
  m->hash = rc::fnv1a64(m->bytes.data(), m->bytes.size());
  m->root = rc::manifest::GetManifest(m->bytes.data());
  return m;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // rc-manifest verify prints a line per finding: not the fuzzer's output.
  if (!std::freopen("/dev/null", "w", stdout))
    return 1;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> aligned(data, data + size);
  if (!rc::verifyManifestBytes(aligned.data(), aligned.size(), nullptr))
    return 0;

  rc::server::Registry registry;
  std::string error;
  if (registry.add(std::move(*loaded(data, size)), &error)) {
    rc::server::HostBackend backend;
    backend.prepare(registry, &error);
  }

  rc::rt::KernelIndex index;
  index.add(loaded(data, size));
  const rc::manifest::Manifest *root = rc::manifest::GetManifest(data);
  if (root->kernels())
    for (const rc::manifest::Kernel *k : *root->kernels())
      rc::rt::KernelIndex::describe(index.kernel(k->id()));

  rc::tools::verifyManifest(*loaded(data, size));
  return 0;
}
