#include "libraries/library_catalog.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace rc::server::lib {

namespace {

// Sonames of CUDA 13 first, then 12's, where they differ.
const VendorLibrary kLibraries[] = {
    {"cuRAND", "curand", {"libcurand.so.10"}},
    {"cuSPARSE", "cusparse", {"libcusparse.so.12"}},
    {"cuSOLVER", "cusolver", {"libcusolver.so.12", "libcusolver.so.11"}},
    // NPP's functions are spread over its eleven libraries; those served
    // so far are in nppif (filtering).
    {"NPP", "npp", {"libnppif.so.13", "libnppif.so.12"}, true},
    // Before cuBLAS: its prefix is longer.
    {"cuBLASLt", "cublasLt", {"libcublasLt.so.13", "libcublasLt.so.12"}},
    // Opened by the cuBLAS backend (RC_CUBLAS_LIBRARY, then its names).
    {"cuBLAS", "cublas", {}, false, true},
};

const VendorLibrary *libraryOf(const std::string &function) {
  for (const VendorLibrary &l : kLibraries)
    if (function.rfind(l.prefix, 0) == 0)
      return &l;
  return nullptr;
}

bool isObjectRule(Pass p) { return p == Pass::Object || p == Pass::Destroy; }

} // namespace

LibraryCatalog &LibraryCatalog::instance() {
  static LibraryCatalog catalog;
  return catalog;
}

LibraryCatalog::LibraryCatalog() {
  std::vector<CatalogRow> rows;
  addRows(&rows);
  for (CatalogRow &row : rows) {
    std::string why;
    row.library = libraryOf(row.function);
    if (!row.library)
      why = "no library serves the prefix of " + row.function;
    else if (parseParams(row.params.c_str(), &row.rules, &why))
      rowMatchesType(row, &why);
    if (!why.empty()) {
      // A row of a .def file contradicts its header: fix the row.
      std::fprintf(stderr, "rc-server: library call %s: %s\n", row.key.c_str(),
                   why.c_str());
      std::abort();
    }
    std::string key = row.key;
    rows_.emplace(std::move(key), std::move(row));
  }
  for (const auto &[key, row] : rows_) {
    const std::string &f = row.function;
    bool setsStream =
        f.find("SetStream") != std::string::npos && row.rules.size() == 2 &&
        row.rules[0].pass == Pass::Object && row.rules[1].pass == Pass::Stream;
    if (setsStream)
      streamSetters_[row.signature.params[0].object] = &row;
  }
}

const CatalogRow *LibraryCatalog::streamSetter(const void *objectType) const {
  auto it = streamSetters_.find(objectType);
  return it == streamSetters_.end() ? nullptr : it->second;
}

bool LibraryCatalog::rowMatchesType(const CatalogRow &row, std::string *why) {
  const std::vector<ParamShape> &types = row.signature.params;
  if (row.rules.size() != types.size()) {
    *why = std::to_string(row.rules.size()) + " parameter rules for " +
           std::to_string(types.size()) + " parameters";
    return false;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    const ParamRule &r = row.rules[i];
    const ParamShape &t = types[i];
    std::string at = "parameter " + std::to_string(i) + ": ";
    bool byValue = r.pass == Pass::Value || r.pass == Pass::StreamContext;
    if (r.pass == Pass::StreamContext && t.valueBytes < 8) {
      *why = at + "a stream context holds a stream first";
      return false;
    }
    if (byValue == t.isPointer) {
      *why = at + (t.isPointer ? "a pointer passed by value"
                               : "a value passed as a pointer");
      return false;
    }
    if (isObjectRule(r.pass) && !t.object) {
      *why = at + "names no library object type";
      return false;
    }
    if (t.object && !isObjectRule(r.pass) && r.pass != Pass::Stream) {
      *why = at + "a library object (or stream) passed as memory";
      return false;
    }
    if (r.pass == Pass::Create && !t.created) {
      *why = at + "is not a pointer to a library object";
      return false;
    }
    if (r.pass == Pass::WorkSize &&
        (t.pointeeBytes != 4 && t.pointeeBytes != 8)) {
      *why = at + "a work size must be an int or size_t";
      return false;
    }
    if (r.pass == Pass::Table && !r.elementBytes) {
      *why = at + "a table needs its size (t:BYTES)";
      return false;
    }
    // (Device memory of unknown size is checked at its first byte.)
    if ((r.pass == Pass::HostIn || r.pass == Pass::HostOut ||
         r.pass == Pass::HostInOut) &&
        !t.pointeeBytes && !r.elementBytes && r.typeParam < 0) {
      *why = at + "a void pointer needs its element size (:BYTES)";
      return false;
    }
    if ((r.countParam >= 0 && types[r.countParam].isPointer) ||
        (r.typeParam >= 0 && types[r.typeParam].isPointer)) {
      *why = at + "its count or data type is not an integer";
      return false;
    }
  }
  bool creates = false;
  for (const ParamRule &r : row.rules)
    creates |= r.pass == Pass::Create;
  if (creates != !row.destroys.empty()) {
    *why = creates ? "makes an object but names nothing that destroys it"
                   : "names a destroyer but makes no object";
    return false;
  }
  return true;
}

const CatalogRow *LibraryCatalog::find(const std::string &key) const {
  auto it = rows_.find(key);
  return it == rows_.end() ? nullptr : &it->second;
}

void *LibraryCatalog::symbol(const CatalogRow &row, std::string *why) {
  std::lock_guard<std::mutex> lock(mu_);
  auto s = symbols_.find(row.key);
  if (s != symbols_.end())
    return s->second;
  std::vector<void *> &libs = opened_[row.library];
  if (libs.empty()) {
    std::string errors;
    for (const char *file : row.library->files) {
      if (void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL)) {
        libs.push_back(lib);
        continue;
      }
      const char *e = dlerror();
      errors += std::string(errors.empty() ? "" : "; ") + (e ? e : file);
    }
    if (libs.empty()) {
      *why = "rc-server cannot open " + std::string(row.library->name) + " (" +
             errors + ")";
      return nullptr;
    }
  }
  void *sym = nullptr;
  for (size_t i = 0; i < libs.size() && !sym; ++i)
    sym = dlsym(libs[i], row.function.c_str());
  if (!sym) {
    *why =
        std::string(row.library->name) + " on rc-server has no " + row.function;
    return nullptr;
  }
  symbols_[row.key] = sym;
  return sym;
}

} // namespace rc::server::lib
