// How a vendor library call (cuRAND's host API, ...) travels to rc-server:
// the rule both ends read, so client and server walk the same arguments.
// docs/libraries.md explains the design.
//
// Each served function has a row in a list under rc/libcalls/ (one per
// library): its name, and how each of its parameters passes, one token per
// parameter, separated by spaces:
//   v         by value (an integer, enum, float, double or plain struct)
//   h         a library object this session made earlier (by a `c`)
//   c         a pointer the call stores a new library object through
//   x         the library object the call destroys
//   s         a cudaStream_t
//   d         device memory the call reads or writes
//   i         host memory the call reads
//   o         host memory the call writes
//   u         host memory the call reads and writes
//   z         a host integer the call writes: the size of a host work
//             buffer (`w`) later calls take, which the session remembers
//   w         a host work buffer the library keeps state in between
//             calls: rc-server keeps one per client address, as large as
//             the largest size a `z` reported
//   k         a struct by value whose first member is a cudaStream_t (NPP's
//             NppStreamContext): its bytes, with the stream mapped as `s`
//   t         a pointer the call stores the address of a host table the
//             library owns through (curandGetDirectionVectors32)
// `d?`, `i?` and `o?` may also be null (a work buffer of size 0,
// cuBLASLt's optional algorithm, cuSOLVER's optional right-hand side). A
// pointer token may give its extent: `#K` counts elements by the value of
// parameter K (an integer `v`), `#K+N` adds N, `:E` sets the bytes of one
// element (default: the pointee's size; needed for void pointers and tables),
// `@K` takes them from parameter K, a cudaDataType (cuSPARSE's alpha, typed by
// its compute type). Without `#K` a pointer covers one element. Device memory
// given an extent must lie inside the session's allocations entirely; without
// one, its first byte must.
//
// On the wire (wire::LibCall.args), first a fixed part, parameter by
// parameter: `v` its bytes; `k` its bytes with the wire stream in its
// first eight; `h`, `c`, `x` the object's ID (chosen by the
// client, as for cuBLAS handles); `s` the wire stream; `d` the address;
// for `i?` and `o?` one byte, 1 when it is not null; `w` the client's address
// of the buffer (its name); nothing for `i`, `o`, `u`, `z`, `t`. Then the bytes
// of each `i` (and non-null `i?`) and `u`, in order (their sizes follow from
// the counts in the fixed part). The server returns what `o`, `u`, `z` and `t`
// parameters hold after the call, in order, as the reply's payload.
#ifndef RC_LIB_CALL_H
#define RC_LIB_CALL_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace rc::lib {

enum class Pass : char {
  Value = 'v',
  Object = 'h',
  Create = 'c',
  Destroy = 'x',
  Stream = 's',
  Device = 'd',
  HostIn = 'i',
  HostOut = 'o',
  HostInOut = 'u',
  WorkSize = 'z',
  HostWork = 'w',
  Table = 't',
  StreamContext = 'k',
};

struct ParamRule {
  Pass pass = Pass::Value;
  int countParam = -1;       // -1: one element
  uint64_t countAdd = 0;     // added to that parameter's value
  uint64_t elementBytes = 0; // 0: the pointee's size
  int typeParam = -1;        // its element is this parameter's cudaDataType
  bool nullable = false;     // `d?`, `i?`, `o?`: a null pointer passes as null
};

// One served function: its row of an rc/libcalls list.
struct CallSpec {
  const char *name;
  const char *params;   // the tokens
  const char *destroys; // for a call with a `c`: what destroys the object
};

template <class T, class = void> struct IsComplete : std::false_type {};
template <class T>
struct IsComplete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

// The bytes of one element a pointer of type T points to, as both ends
// size `d`, `i` and `o` parameters: 0 for void, functions and the
// incomplete structs that library objects are.
template <class T> constexpr uint32_t pointeeBytes() {
  if constexpr (std::is_pointer_v<T>) {
    using P = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_void_v<P> || std::is_function_v<P> ||
                  !IsComplete<P>::value)
      return 0;
    else
      return uint32_t(sizeof(P));
  }
  return 0;
}

// Parses a row's tokens; false and *why on a malformed row (a build-time
// mistake: tests parse every row).
inline bool parseParams(const char *text, std::vector<ParamRule> *out,
                        std::string *why) {
  out->clear();
  const char *p = text;
  while (*p) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    ParamRule r;
    switch (*p) {
    case 'v':
    case 'h':
    case 'c':
    case 'x':
    case 's':
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'z':
    case 'w':
    case 't':
    case 'k':
      r.pass = Pass(*p++);
      if ((r.pass == Pass::Device || r.pass == Pass::HostIn ||
           r.pass == Pass::HostOut) &&
          *p == '?')
        r.nullable = true, ++p;
      break;
    default:
      *why = std::string("unknown parameter token '") + *p + "' in \"" + text +
             "\"";
      return false;
    }
    auto number = [&](uint64_t *v) {
      if (*p < '0' || *p > '9')
        return false;
      *v = 0;
      while (*p >= '0' && *p <= '9')
        *v = *v * 10 + uint64_t(*p++ - '0');
      return true;
    };
    // `mark` then a number: false (and *why) when the number is missing.
    auto field = [&](char mark, uint64_t *v, const char *what) {
      if (*p != mark)
        return true;
      ++p;
      if (number(v))
        return true;
      *why = std::string("'") + mark + "' without " + what + " in \"" + text +
             "\"";
      return false;
    };
    uint64_t count = UINT64_MAX, type = UINT64_MAX;
    if (!field('#', &count, "a parameter number") ||
        (count != UINT64_MAX && !field('+', &r.countAdd, "a number")) ||
        !field(':', &r.elementBytes, "a size") ||
        !field('@', &type, "a parameter number"))
      return false;
    r.countParam = count == UINT64_MAX ? -1 : int(count);
    r.typeParam = type == UINT64_MAX ? -1 : int(type);
    if (*p && *p != ' ') {
      *why = std::string("unexpected '") + *p + "' in \"" + text + "\"";
      return false;
    }
    out->push_back(r);
  }
  auto isValue = [&](int k) {
    return k < 0 || (k < int(out->size()) && (*out)[k].pass == Pass::Value);
  };
  for (const ParamRule &r : *out)
    if (!isValue(r.countParam) || !isValue(r.typeParam)) {
      *why =
          std::string("a count names no value parameter in \"") + text + "\"";
      return false;
    }
  return true;
}

// The rules of a cuBLAS row on a handle in CUBLAS_POINTER_MODE_DEVICE: its
// scalars and results (`i`, `o`, `u`: every host pointer of cuBLAS's rows)
// are device memory, passed and checked as `d` with the same extent. Both
// ends apply it to their own copy of the row (wire::LibCall.
// scalars_on_device), so neither trusts the other's tokens.
inline void scalarsOnDevice(std::vector<ParamRule> *rules) {
  for (ParamRule &r : *rules)
    if (r.pass == Pass::HostIn || r.pass == Pass::HostOut ||
        r.pass == Pass::HostInOut)
      r.pass = Pass::Device;
}

// A value parameter's number, for counts: integers of 1 to 8 bytes, read
// as the little-endian unsigned value of its bytes (a negative count is
// then huge and fails the bounds checks that follow).
inline uint64_t countValue(const uint8_t *bytes, size_t size) {
  uint64_t v = 0;
  std::memcpy(&v, bytes, size < 8 ? size : 8);
  if (size < 8 && size > 0 && (bytes[size - 1] & 0x80))
    return UINT64_MAX; // negative
  return v;
}

// Bytes of one element of a cudaDataType (library_types.h's numbers); 0
// for a number that names none.
inline uint64_t dataTypeBytes(uint64_t type) {
  //                         R_32F R_64F R_16F R_8I C_32F C_64F C_16F C_8I
  static const uint8_t kBytes[] = {4, 8, 2, 1, 8, 16, 4, 2,
                                   // R_8U C_8U R_32I C_32I R_32U C_32U
                                   1, 2, 4, 8, 4, 8,
                                   // R_16BF C_16BF R_4I C_4I R_4U C_4U
                                   2, 4, 0, 0, 0, 0,
                                   // R_16I C_16I R_16U C_16U
                                   2, 4, 2, 4,
                                   // R_64I C_64I R_64U C_64U
                                   8, 16, 8, 16};
  return type < sizeof kBytes ? kBytes[type] : 0;
}

// Bytes parameter i of a row covers (its count times its element size);
// false when that overflows `limit`, or its data type names none.
// `valueOf(k)` gives value parameter k's bytes and their size, as each
// end holds them.
template <class ValueOf>
bool paramExtent(const std::vector<ParamRule> &rules, size_t i,
                 uint64_t pointeeBytes, uint64_t limit, ValueOf valueOf,
                 uint64_t *out) {
  const ParamRule &r = rules[i];
  uint64_t elem = r.elementBytes ? r.elementBytes : pointeeBytes;
  if (r.typeParam >= 0) {
    auto [bytes, size] = valueOf(size_t(r.typeParam));
    if (!(elem = dataTypeBytes(countValue(bytes, size))))
      return false;
  }
  uint64_t count = 1;
  if (r.countParam >= 0) {
    auto [bytes, size] = valueOf(size_t(r.countParam));
    count = countValue(bytes, size);
    if (count > UINT64_MAX - r.countAdd)
      return false;
    count += r.countAdd;
  }
  if (elem && count > limit / elem)
    return false;
  *out = count * elem;
  return true;
}

} // namespace rc::lib

#endif
