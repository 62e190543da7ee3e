// cuGetProcAddress: frameworks resolve every driver entry point through it
// (or through the runtime's cudaGetDriverEntryPoint, which comes here).
// A name resolves by NVIDIA's rule to the newest ABI introduced at or
// before the caller's CUDA version (proc_table.h), and that ABI's symbol
// to what this library exports under it: a served function, or the stub
// that fails at the call naming it (gen_unsupported_stubs.py), exactly
// what a program linked to the symbol would call. See docs/driver-api.md,
// "cuGetProcAddress".
#include "proc_table.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <set>
#include <string>

namespace {

using rc::cu::kNewestDriverApi;
using rc::cu::kProcNameCount;
using rc::cu::kProcNames;
using rc::cu::ProcAbi;
using rc::cu::ProcName;

const ProcName *findName(const char *name) {
  const ProcName *end = kProcNames + kProcNameCount;
  const ProcName *at =
      std::lower_bound(kProcNames, end, name, [](const ProcName &p, auto n) {
        return std::strcmp(p.name, n) < 0;
      });
  return at != end && std::strcmp(at->name, name) == 0 ? at : nullptr;
}

// The ABI `version` gets: the newest introduced at or before it. With
// perThread, the per-thread default stream variant where the function has
// one (a function without stream semantics has none, and its plain ABI
// serves both).
const ProcAbi *abiFor(const ProcName &p, int version, bool perThread) {
  const ProcAbi *best = nullptr;
  for (int pass = perThread ? 0 : 1; pass < 2 && !best; ++pass)
    for (size_t i = 0; i < p.count; ++i) {
      const ProcAbi &a = p.abis[i];
      if (a.perThread == (pass == 0) && a.since <= version &&
          (!best || a.since >= best->since))
        best = &a;
    }
  return best;
}

// This library's own symbols (and its runtime's): what a program linked
// to the same symbol would call.
void *ownSymbol(const char *symbol) {
  static void *self = [] {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&abiFor), &info) || !info.dli_fname)
      return static_cast<void *>(nullptr);
    return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }();
  return self ? dlsym(self, symbol) : nullptr;
}

// Once per line: a framework may ask for the same name in a loop.
void reportOnce(const std::string &line) {
  static std::mutex mu;
  static std::set<std::string> *said = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  if (said->insert(line).second)
    std::fprintf(stderr, "remote-clang: %s\n", line.c_str());
}

std::string versionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// NVIDIA's contract: CUDA_SUCCESS with *pfn null and the reason in
// *status when no ABI fits; CUDA_ERROR_INVALID_VALUE for bad arguments
// and for a version newer than the driver's.
CUresult resolve(const char *symbol, void **pfn, int version, cuuint64_t flags,
                 CUdriverProcAddressQueryResult *status) {
  CUdriverProcAddressQueryResult ignored;
  if (!status)
    status = &ignored;
  if (!symbol || !pfn)
    return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const cuuint64_t known = CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if ((flags & ~known) || (flags & known) == known)
    return CUDA_ERROR_INVALID_VALUE;
  if (version > kNewestDriverApi) {
    reportOnce("cuGetProcAddress(\"" + std::string(symbol) + "\", CUDA " +
               versionText(version) +
               "): remote-clang's driver library serves the driver API "
               "up to CUDA " +
               versionText(kNewestDriverApi));
    return CUDA_ERROR_INVALID_VALUE;
  }
  const ProcName *name = findName(symbol);
  if (!name)
    return CUDA_SUCCESS; // no driver function of that name
  bool perThread = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  const ProcAbi *abi = abiFor(*name, version, perThread);
  if (!abi) {
    *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    return CUDA_SUCCESS;
  }
  if (void *f = ownSymbol(abi->symbol)) {
    *pfn = f;
    *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  // A driver function, but not one this library has even a stub for: an
  // ABI older than its headers (the 32-bit cuMemAlloc of CUDA 2.0) or a
  // per-thread default stream variant.
  reportOnce("cuGetProcAddress(\"" + std::string(symbol) + "\", CUDA " +
             versionText(version) + (perThread ? ", per-thread stream" : "") +
             "): " + abi->symbol +
             " is not served by remote-clang's driver library");
  return CUDA_SUCCESS;
}

} // namespace

// cuda.h maps the name to the newest ABI; both ABIs are defined here.
#undef cuGetProcAddress

extern "C" {

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus) {
  return resolve(symbol, pfn, cudaVersion, flags, symbolStatus);
}

// CUDA 11.3's ABI, whose callers learn of a missing symbol by its result.
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                          cuuint64_t flags) {
  CUdriverProcAddressQueryResult status;
  CUresult r = resolve(symbol, pfn, cudaVersion, flags, &status);
  return r == CUDA_SUCCESS && status != CU_GET_PROC_ADDRESS_SUCCESS
             ? CUDA_ERROR_NOT_FOUND
             : r;
}

} // extern "C"
