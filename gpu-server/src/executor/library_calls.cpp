// Vendor library calls (docs/libraries.md): a LibCall names a row of the
// catalog; its arguments are decoded by the row's rules and checked like
// any command's (objects of this session and of the right type, device
// memory inside this session's allocations, host outputs within the
// reply's bounds), then the library function is called in the session's
// context. What the library does with memory it reaches through objects
// (a sparse matrix's arrays, sized by values it keeps) cannot be checked
// here: the session's own context keeps that inside its allocations.
// A call that is a graph's node (docs/graphs.md, "Library calls in
// graphs") is checked the same way, and runs with its object moved to the
// graph's stream for the call.
#include "executor/library_calls.h"
#include "backend/cublas_context.h"
#include "libraries/library_catalog.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <algorithm>

namespace rc::server {

namespace {

// Bytes of a parameter's fixed part in LibCall.args.
uint64_t fixedBytes(const lib::ParamRule &r, const lib::ParamShape &t) {
  switch (r.pass) {
  case lib::Pass::Value:
  case lib::Pass::StreamContext:
    return t.valueBytes;
  case lib::Pass::HostIn:
  case lib::Pass::HostOut:
    return r.nullable ? 1 : 0; // whether it is null
  case lib::Pass::HostInOut:
  case lib::Pass::WorkSize:
  case lib::Pass::Table:
    return 0;
  default:
    return 8; // an ID, a stream or an address
  }
}

// Parameters whose bytes come back in the reply.
bool returnsBytes(lib::Pass p) {
  return p == lib::Pass::HostOut || p == lib::Pass::HostInOut ||
         p == lib::Pass::WorkSize || p == lib::Pass::Table;
}

// The most a session's host work buffers (`w`) may hold together.
constexpr uint64_t kMaxHostWorkBytes = uint64_t(1) << 30;

uint64_t readU64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// What a graph's node may pass: no host bytes back, no object made or
// destroyed, no host state kept between calls.
bool nodeParameter(lib::Pass p) {
  return p == lib::Pass::Value || p == lib::Pass::Object ||
         p == lib::Pass::Stream || p == lib::Pass::StreamContext ||
         p == lib::Pass::Device || p == lib::Pass::HostIn;
}

// cublasSetPointerMode_v2 and the *SetStream functions, called through the
// pointers the catalog and the cuBLAS backend hand out.
using SetPointerMode = int (*)(void *, int);
constexpr int kPointerModeHost = 0, kPointerModeDevice = 1;

} // namespace

OpStatus LibraryCalls::handle(const wire::LibCall &c, CommandAnswer &a) {
  std::string key = c.function() ? c.function()->str() : "";
  lib::LibraryCatalog &catalog = lib::LibraryCatalog::instance();
  const lib::CatalogRow *row = catalog.find(key);
  if (!row)
    return OpStatus::fail(kErrNotSupported,
                          "rc-server does not serve the library call '" + key +
                              "'");
  *a.what = row->function;
  OpStatus st = devices_.bind(devices_.current());
  if (!st.ok())
    return st;
  std::vector<lib::ParamRule> rules = row->rules;
  if (c.scalars_on_device()) {
    if (!row->library->inBlasContext)
      return OpStatus::fail(kErrInvalidValue,
                            row->function +
                                ": only cuBLAS calls have device scalars "
                                "(a pointer mode)");
    rc::lib::scalarsOnDevice(&rules);
  }
  const bool asNode = devices_.streamOverride() || checkOnly_;
  for (size_t i = 0; asNode && i < rules.size(); ++i)
    if (!nodeParameter(rules[i].pass))
      return OpStatus::fail(kErrInvalidValue,
                            row->function +
                                " cannot be a graph node: it returns host "
                                "values, or makes or destroys an object");
  const std::vector<lib::ParamShape> &types = row->signature.params;
  const size_t n = rules.size();
  const uint8_t *args = c.args() ? c.args()->data() : nullptr;
  const uint64_t size = c.args() ? c.args()->size() : 0;
  auto malformed = [&] {
    return OpStatus::fail(kErrInvalidValue,
                          row->function + ": its arguments (" +
                              std::to_string(size) +
                              " bytes) do not match its parameters");
  };

  // Fixed parts first, then counts, then the extent of every pointer.
  std::vector<uint64_t> at(n);
  uint64_t used = 0;
  for (size_t i = 0; i < n; ++i) {
    at[i] = used;
    used += fixedBytes(rules[i], types[i]);
  }
  if (used > size)
    return malformed();
  std::vector<uint64_t> extent(n);
  for (size_t i = 0; i < n; ++i) {
    const lib::ParamRule &r = rules[i];
    if (r.pass == lib::Pass::Value)
      continue;
    auto paramBytes = [&](size_t k) {
      return std::pair<const uint8_t *, size_t>(args + at[k],
                                                types[k].valueBytes);
    };
    if (!lib::paramExtent(rules, i, types[i].pointeeBytes, uint64_t(1) << 40,
                          paramBytes, &extent[i]))
      return OpStatus::fail(kErrInvalidValue,
                            row->function + ": parameter " + std::to_string(i) +
                                " covers too many bytes, or its "
                                "data type names none");
  }

  std::vector<lib::Slot> slots(n);
  std::vector<std::vector<uint8_t>> buffers(n); // host inputs and outputs
  // A parameter's name in errors, made only for one.
  auto role = [&](size_t i) {
    return row->function + " parameter " + std::to_string(i);
  };
  for (size_t i = 0; i < n; ++i) {
    const lib::ParamRule &r = rules[i];
    lib::Slot &s = slots[i];
    switch (r.pass) {
    case lib::Pass::Value:
      std::memcpy(s.value, args + at[i], types[i].valueBytes);
      break;
    case lib::Pass::Object:
      if (types[i].object == lib::cublasHandleType()) {
        if (!(st = cublasRowHandle(readU64(args + at[i]), &s.pointer)).ok())
          return st;
        break;
      }
      [[fallthrough]];
    case lib::Pass::Destroy: {
      auto o = libObjects_.find(readU64(args + at[i]));
      if (o == libObjects_.end() || o->second.type != types[i].object)
        return OpStatus::fail(
            kErrInvalidResourceHandle,
            role(i) + ": " + hexAddress(readU64(args + at[i])) +
                " names no object of its type in this session");
      // The call runs in the context its objects were made in.
      if (!(st = devices_.bind(o->second.device)).ok())
        return st;
      s.pointer = o->second.native;
      break;
    }
    case lib::Pass::Create: {
      uint64_t id = readU64(args + at[i]);
      if (id == 0 || libObjects_.count(id))
        return OpStatus::fail(kErrInvalidValue,
                              role(i) + ": object handle " + hexAddress(id) +
                                  " is null or already in use");
      s.pointer = s.value; // the library stores the new object here
      break;
    }
    case lib::Pass::Stream: {
      NativeHandle native = 0;
      if (!(st = devices_.bindStream(readU64(args + at[i]), &native)).ok())
        return st;
      s.pointer = reinterpret_cast<void *>(native);
      break;
    }
    case lib::Pass::StreamContext: {
      // The struct as the client filled it, its stream made the server's.
      NativeHandle native = 0;
      if (!(st = devices_.bindStream(readU64(args + at[i]), &native)).ok())
        return st;
      std::memcpy(s.value, args + at[i], types[i].valueBytes);
      void *stream = reinterpret_cast<void *>(native);
      std::memcpy(s.value, &stream, sizeof stream);
      break;
    }
    case lib::Pass::Device: {
      uint64_t addr = readU64(args + at[i]);
      if (addr == 0 && r.nullable)
        break; // null, as the client gave it
      uint64_t bytes = std::max<uint64_t>(extent[i], 1);
      if (!(st = memory_.checkRange(role(i).c_str(), addr, bytes)).ok())
        return st;
      s.pointer = devices_.ctx()->libraryPointer(addr, bytes);
      break;
    }
    case lib::Pass::HostIn:
    case lib::Pass::HostInOut:
      if (r.nullable && args[at[i]] == 0)
        break; // null, as the client gave it
      if (extent[i] > size - used)
        return malformed();
      if (r.pass == lib::Pass::HostInOut &&
          !(st = reply_.reserve(extent[i])).ok())
        return st;
      buffers[i].assign(args + used, args + used + extent[i]);
      used += extent[i];
      s.pointer = buffers[i].data();
      break;
    case lib::Pass::HostOut:
    case lib::Pass::WorkSize:
      if (r.nullable && args[at[i]] == 0)
        break; // null: nothing comes back for it
      if (!(st = reply_.reserve(extent[i])).ok())
        return st;
      buffers[i].assign(extent[i], 0);
      s.pointer = buffers[i].data();
      break;
    case lib::Pass::Table:
      if (!(st = reply_.reserve(extent[i])).ok())
        return st;
      s.pointer = s.value; // the library stores its table's address here
      break;
    case lib::Pass::HostWork: {
      // Kept for the session by the client's address: the library may
      // leave state in it for a later call.
      uint64_t key = readU64(args + at[i]);
      auto found = hostWork_.find(key);
      uint64_t have = found == hostWork_.end() ? 0 : found->second.size();
      uint64_t grow = hostWorkBytes_ > have ? hostWorkBytes_ - have : 0;
      if (hostWorkBytes_ == 0 || grow > kMaxHostWorkBytes - hostWorkHeld_)
        return OpStatus::fail(
            kErrInvalidValue,
            role(i) + ": a host work buffer of " +
                std::to_string(hostWorkBytes_) +
                " bytes (the size an earlier call of this session "
                "reported) beside " +
                std::to_string(hostWorkHeld_) +
                " bytes this session's buffers hold; rc-server keeps "
                "up to " +
                std::to_string(kMaxHostWorkBytes) +
                " bytes of them per session");
      std::vector<uint8_t> &work = hostWork_[key];
      work.resize(have + grow);
      hostWorkHeld_ += grow;
      s.pointer = work.data();
      break;
    }
    }
  }
  if (used != size)
    return malformed();
  // bindStream may have moved to the stream's device.
  std::string why;
  void *symbol = librarySymbolOf(*row, &why);
  if (!symbol)
    return OpStatus::fail(kErrNotSupported, why);
  if (checkOnly_)
    return OpStatus::success();

  int status = 0;
  if (!(st = invokeLibraryCall(*row, rules, slots, symbol,
                               c.scalars_on_device(), &status))
           .ok())
    return st;

  if (status == 0) {
    for (size_t i = 0; i < n; ++i) {
      if (rules[i].pass == lib::Pass::Create) {
        LibObject &o = libObjects_[readU64(args + at[i])];
        std::memcpy(&o.native, slots[i].value, sizeof(void *));
        o.type = types[i].created;
        o.destroys = row->destroys;
        o.device = devices_.bound();
        o.order = ++libObjectsMade_;
      } else if (rules[i].pass == lib::Pass::Destroy) {
        libObjects_.erase(readU64(args + at[i]));
        libraryStreams_.erase(slots[i].pointer);
      }
    }
  }
  bool returnsHostBytes = false;
  for (size_t i = 0; i < n; ++i) {
    // (A null `o?` returns nothing: the client sent the call batched.)
    returnsHostBytes |=
        returnsBytes(rules[i].pass) && !(rules[i].nullable && args[at[i]] == 0);
    if (status == 0 && rules[i].pass == lib::Pass::WorkSize)
      hostWorkBytes_ =
          std::max(hostWorkBytes_,
                   lib::countValue(buffers[i].data(), buffers[i].size()));
  }
  if (!returnsHostBytes) {
    // Batched: the client already went on; a failure fails the batch
    // (NPP's positive statuses are warnings).
    if (row->library->positiveIsWarning ? status < 0 : status != 0)
      return OpStatus::fail(kErrUnknown, row->function + " returned status " +
                                             std::to_string(status));
    return OpStatus::success();
  }
  // The client waits for the status and for what the call wrote.
  std::vector<uint8_t> out;
  for (size_t i = 0; i < n && status == 0; ++i) {
    if (rules[i].pass == lib::Pass::Table) {
      const uint8_t *table;
      std::memcpy(&table, slots[i].value, sizeof table);
      if (!table)
        return OpStatus::fail(kErrUnknown, row->function + " gave no table");
      out.insert(out.end(), table, table + extent[i]);
    } else if (returnsBytes(rules[i].pass)) {
      out.insert(out.end(), buffers[i].begin(), buffers[i].end());
    }
  }
  a.result.code = status;
  a.result.payload =
      reply_.builder().CreateVector(out.data(), status == 0 ? out.size() : 0);
  a.give();
  return OpStatus::success();
}

void *LibraryCalls::librarySymbolOf(const lib::CatalogRow &row,
                                    std::string *why) {
  if (!row.library->inBlasContext)
    return lib::LibraryCatalog::instance().symbol(row, why);
  BlasContext *blas = devices_.ctx()->blas(why);
  void *symbol = blas ? blas->librarySymbol(row.function.c_str()) : nullptr;
  if (blas && !symbol)
    *why = row.function + " is not in the cuBLAS library this device serves "
                          "(the test device's is a CPU reference of the "
                          "GEMMs)";
  return symbol;
}

OpStatus
LibraryCalls::invokeLibraryCall(const lib::CatalogRow &row,
                                const std::vector<lib::ParamRule> &rules,
                                std::vector<lib::Slot> &slots, void *symbol,
                                bool scalarsOnDevice, int *status) {
  lib::LibraryCatalog &catalog = lib::LibraryCatalog::instance();
  const std::vector<lib::ParamShape> &types = row.signature.params;
  // The call's object: where its library keeps the stream and the mode.
  size_t obj = 0;
  while (obj < rules.size() && rules[obj].pass != lib::Pass::Object)
    ++obj;
  void *object = obj < rules.size() ? slots[obj].pointer : nullptr;
  const lib::CatalogRow *setter =
      object ? catalog.streamSetter(types[obj].object) : nullptr;
  std::string why;
  void *setStream = nullptr;
  if (devices_.streamOverride() && setter &&
      !(setStream = librarySymbolOf(*setter, &why)))
    return OpStatus::fail(kErrNotSupported, why);
  SetPointerMode setMode = nullptr;
  if (scalarsOnDevice) {
    BlasContext *blas = devices_.ctx()->blas(&why);
    setMode = blas ? reinterpret_cast<SetPointerMode>(
                         blas->librarySymbol("cublasSetPointerMode_v2"))
                   : nullptr;
    if (!setMode)
      return OpStatus::fail(kErrNotSupported,
                            row.function +
                                " with device scalars: no "
                                "cublasSetPointerMode_v2 on this device");
  }
  auto moveTo = [&](void *stream) {
    lib::Slot args[2];
    args[0].pointer = object, args[1].pointer = stream;
    setter->signature.invoke(setStream, args);
  };
  // A graph's node: its object works on the graph's stream for this call.
  if (setStream)
    moveTo(reinterpret_cast<void *>(devices_.streamOverride()->native));
  if (setMode)
    setMode(object, kPointerModeDevice);
  *status = row.signature.invoke(symbol, slots.data());
  if (setMode)
    setMode(object, kPointerModeHost);
  if (setStream)
    moveTo(libraryStreams_[object]);
  // The stream the program gave the object, to return it to after a node.
  if (*status == 0 && !devices_.streamOverride() && setter == &row)
    libraryStreams_[object] = slots[1].pointer;
  return OpStatus::success();
}

void LibraryCalls::forgetStream(void *stream) {
  for (auto &[object, s] : libraryStreams_)
    if (s == stream)
      s = nullptr; // the context's legacy stream, as a new object has
}

OpStatus LibraryCalls::cublasRowHandle(uint64_t handle, void **out) {
  std::string why;
  BlasContext *blas = devices_.ctx()->blas(&why);
  if (!blas)
    return OpStatus::fail(kErrNotSupported, why);
  if (!(*out = blas->nativeHandle(handle)))
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "cuBLAS handle " + hexAddress(handle) +
                              " names no handle of this session");
  return OpStatus::success();
}

void LibraryCalls::destroyObjects() {
  std::vector<std::pair<uint64_t, LibObject *>> made;
  for (auto &kv : libObjects_)
    made.push_back({kv.second.order, &kv.second});
  std::sort(made.rbegin(), made.rend()); // newest first
  lib::LibraryCatalog &catalog = lib::LibraryCatalog::instance();
  for (auto &[order, o] : made) {
    const lib::CatalogRow *row = catalog.find(o->destroys);
    std::string why;
    void *symbol = row ? catalog.symbol(*row, &why) : nullptr;
    if (!symbol || !devices_.bind(o->device).ok())
      continue;
    lib::Slot slot;
    slot.pointer = o->native;
    row->signature.invoke(symbol, &slot);
  }
  libObjects_.clear();
}

} // namespace rc::server
