// The vendor library calls rc-server serves (docs/libraries.md): one row
// per entry of abi/include/rc/libcalls/*.def, with the parameters' rules
// and C types, and the libraries themselves, opened on first use and kept
// for every session (their code is shared; their objects are per session).
#ifndef RC_SERVER_LIBRARY_CATALOG_H
#define RC_SERVER_LIBRARY_CATALOG_H

#include "libraries/lib_invoke.h"
#include "rc/lib_call.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace rc::server::lib {

// The wire rule of rc/lib_call.h, shared with the client.
using rc::lib::countValue;
using rc::lib::dataTypeBytes;
using rc::lib::paramExtent;
using rc::lib::ParamRule;
using rc::lib::parseParams;
using rc::lib::Pass;

// A library rc-server opens: its name in errors and the file names it may
// have (newest first).
struct VendorLibrary {
  const char *name;
  const char *prefix; // of its functions
  // The files its functions are in (each opened where present; a
  // function is looked up in them in order: newest first).
  std::vector<const char *> files;
  bool positiveIsWarning = false; // NPP: statuses above 0 are warnings
  // cuBLAS: no files of its own; its functions come from the libcublas the
  // session's cuBLAS handles were made by (BlasContext::librarySymbol).
  bool inBlasContext = false;
};

struct CatalogRow {
  std::string key;      // the wire name
  std::string function; // the symbol
  std::string destroys; // the key of the row destroying what a `c` makes
  std::string params;   // the row's tokens (rc/lib_call.h)
  std::vector<ParamRule> rules; // parsed from them
  Signature signature;
  const VendorLibrary *library = nullptr; // by the function's prefix
};

class LibraryCatalog {
public:
  // Every served row; built once (rows that contradict their function's
  // type abort at start-up: a build mistake, which tests catch first).
  static LibraryCatalog &instance();

  const CatalogRow *find(const std::string &key) const;
  // The row that gives an object of this type its stream (`h s`, a
  // *SetStream function: cublasSetStream_v2, cusparseSetStream, ...), or
  // null: a graph's node runs such an object's call on the graph's stream.
  const CatalogRow *streamSetter(const void *objectType) const;
  const std::map<std::string, CatalogRow> &rows() const { return rows_; }

  // The function of a row, from its library (opened on first use, by any
  // session); null and *why when the library or the symbol is missing.
  void *symbol(const CatalogRow &row, std::string *why);

  // Checks a row against its function's C type: one rule per parameter,
  // values where the type is not a pointer, objects where it names one.
  static bool rowMatchesType(const CatalogRow &row, std::string *why);

private:
  LibraryCatalog();
  std::map<std::string, CatalogRow> rows_;
  std::map<const void *, const CatalogRow *> streamSetters_; // by object type
  std::mutex mu_;
  std::map<const VendorLibrary *, std::vector<void *>> opened_; // dlopen
  std::map<std::string, void *> symbols_;                       // by row key
};

// Every library's rows (catalog_rows.cpp, compiled against their headers).
void addRows(std::vector<CatalogRow> *rows);
// The type tag of cublasHandle_t: such a parameter names the session's
// cuBLAS handle (BlasContext), and its row's function comes from the
// libcublas that handle was made by.
const void *cublasHandleType();
// A cublasSetStream_v2 that does nothing, for the test device's cuBLAS.
void *cublasSetStreamIgnored();

} // namespace rc::server::lib

#endif
