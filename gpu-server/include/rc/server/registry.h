// Everything rc-server knows about kernels and variables: the verified
// manifests, their modules (deduplicated by fatbin hash), every distinct
// definition of a kernel or variable, and one lookup table per manifest
// from 64-bit ID to the definition that manifest means.
//
// IDs are scoped by manifest: two programs may define a kernel or a
// __constant__ of the same name (so the same ID) with other types, sizes or
// code, and each keeps its own definition. A definition two manifests share
// (the same library linked into two binaries: same module, name and layout)
// is held once. A session resolves IDs only in the manifests its client
// announced (rc/server/session_symbols.h).
#ifndef RC_SERVER_REGISTRY_H
#define RC_SERVER_REGISTRY_H

#include "rc/manifest_file.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace rc::server {

struct ParamInfo {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
  manifest::ParamKind kind = manifest::ParamKind::Value;
  std::vector<uint32_t> pointerOffsets; // absolute offsets in the args buffer
};

struct ModuleInfo {
  std::string source;
  uint64_t fatbinHash = 0;
  const uint8_t *fatbin = nullptr; // points into a LoadedManifest's bytes
  size_t fatbinSize = 0;
  void *native = nullptr; // backend's loaded module (CUlibrary)
};

// cudaFuncAttributes of a kernel on the served device, filled by the
// backend's prepare() (cuKernelGetAttribute; plausible values on the host
// test device) and sent in HelloReply so clients answer locally.
struct KernelAttrs {
  int32_t numRegs = 0;
  int32_t maxThreadsPerBlock = 0;
  int32_t sharedSizeBytes = 0;
  int32_t constSizeBytes = 0;
  int32_t localSizeBytes = 0;
  int32_t ptxVersion = 0;
  int32_t binaryVersion = 0;
  int32_t maxDynamicSharedSizeBytes = 0;
  int32_t preferredCarveout = -1;
  int32_t cacheModeCA = 0;
};

struct KernelInfo {
  uint64_t id = 0;
  std::string name;      // mangled: what cuLibraryGetKernel wants
  std::string demangled; // for messages
  std::string firstSite; // "file:line" of the first launch site, or ""
  uint32_t module = 0;   // index into Registry::modules
  uint32_t argsSize = 0;
  std::vector<ParamInfo> params;
  std::vector<uint32_t> manifests; // indices of manifests declaring it
  void *native = nullptr;          // backend's handle (CUkernel)
  // False when no cubin of its module defines it: its device code was
  // compiled out (manifest/include/rc/manifest_check.h), and a launch fails.
  bool hasDeviceCode = true;
  KernelAttrs attrs;
  // "kernel foo(int*) (launched at a.cu:12)": how errors name a launch.
  std::string describe() const;
};

struct VariableInfo {
  uint64_t id = 0;
  std::string name;
  std::string demangled;
  uint64_t size = 0;
  uint32_t module = 0;
  std::vector<uint32_t> manifests;
  void *library = nullptr; // backend's module handle (CUlibrary)
};

class Registry {
public:
  // Takes ownership of a verified manifest and indexes it. Fails (naming the
  // manifest and the kernel) on inconsistent layouts, an ID the manifest
  // gives twice, or a manifest that contradicts itself or its cubins
  // (manifest/include/rc/manifest_check.h: hashes, build ID, layouts; a module
  // whose cubins cannot be read is taken unchecked). A refused manifest
  // leaves the registry as it was.
  bool add(LoadedManifest manifest, std::string *error);
  bool addFile(const std::string &path, std::string *error);

  // What manifest `manifest` (an index) means by kernel / variable `id`,
  // or null when it has none.
  const KernelInfo *kernelIn(uint32_t manifest, uint64_t id) const;
  const VariableInfo *variableIn(uint32_t manifest, uint64_t id) const;
  // Every kernel of manifest `manifest`, by ID.
  const std::unordered_map<uint64_t, const KernelInfo *> &
  kernelsOf(uint32_t manifest) const {
    return scopes_[manifest].kernels;
  }
  // Index of the manifest with this file hash, or -1.
  int manifestByHash(uint64_t hash) const;
  // Whether a loaded manifest is of this build (rc/build_id.h).
  bool holdsBuild(uint64_t id) const;

  size_t manifestCount() const { return manifests_.size(); }
  const LoadedManifest &manifest(size_t i) const { return *manifests_[i]; }

  std::vector<ModuleInfo> modules;
  // Every distinct definition (a deque: addresses stay put as it grows;
  // the backends fill `native` and `attrs` in place).
  std::deque<KernelInfo> kernels;
  std::deque<VariableInfo> variables;

private:
  struct Scope { // one manifest's view: ID -> its definition
    std::unordered_map<uint64_t, const KernelInfo *> kernels;
    std::unordered_map<uint64_t, const VariableInfo *> variables;
  };
  // unique_ptr keeps the bytes (and every pointer into them) in place.
  std::vector<std::unique_ptr<LoadedManifest>> manifests_;
  std::vector<Scope> scopes_; // by manifest index
  std::set<uint64_t> builds_;
  // Definitions by ID, to find one another manifest already holds.
  std::unordered_multimap<uint64_t, KernelInfo *> kernelsById_;
  std::unordered_multimap<uint64_t, VariableInfo *> variablesById_;
};

} // namespace rc::server

#endif
