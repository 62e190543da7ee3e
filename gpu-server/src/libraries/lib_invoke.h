// Calls a vendor library function whose C type the compiler knows, with
// arguments the executor decoded into slots (docs/libraries.md). The only
// template part of library calls: each catalog row instantiates
// signatureOf<decltype(::function)>() once, which records how big each
// parameter is and which library object type it names, and an invoker
// that converts the slots back into the typed arguments. It needs no
// server header, so the catalogs compile against the libraries' headers
// alone.
#ifndef RC_SERVER_LIB_INVOKE_H
#define RC_SERVER_LIB_INVOKE_H

#include "rc/lib_call.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace rc::server::lib {

// One parameter's storage for a call: value bytes, or the pointer the
// function receives.
struct Slot {
  alignas(16) uint8_t value[64] = {}; // NppStreamContext: 48 bytes
  void *pointer = nullptr;
};

// A parameter's C type, as the checks need it.
struct ParamShape {
  uint32_t valueBytes = 0; // sizeof the parameter
  bool isPointer = false;
  uint32_t pointeeBytes = 0; // pointers: sizeof *p (0: void, incomplete)
  // Library object types, by a tag per C type: `object` for a parameter
  // naming an object (T with T a pointer to struct S: S's tag), `created`
  // for one a new object is stored through (T* with T such a pointer).
  const void *object = nullptr;
  const void *created = nullptr;
};

using Invoker = int (*)(void *symbol, Slot *slots);

struct Signature {
  std::vector<ParamShape> params;
  Invoker invoke = nullptr;
};

// Library objects are pointers to incomplete structs (curandGenerator_t)
// or, where the library lets programs hold them in their own memory, to
// complete ones a catalog names here: cuBLASLt's descriptors
// (cublasLtMatmulDescOpaque_t).
template <class S> struct IsLibraryObject : std::false_type {};

namespace detail {

template <class T> struct KindTag {
  static constexpr char tag = 0;
};

// The tag of an object type: T a pointer to an incomplete struct or one
// IsLibraryObject names (cv-qualifiers dropped: cusparseConstSpMatDescr_t names
// the same objects as cusparseSpMatDescr_t); null for anything else.
template <class T> constexpr const void *objectTag() {
  if constexpr (std::is_pointer_v<T>) {
    using S = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_class_v<S> &&
                  (!rc::lib::IsComplete<S>::value || IsLibraryObject<S>::value))
      return &KindTag<S>::tag;
  }
  return nullptr;
}

template <class T> ParamShape shapeOf() {
  static_assert(!std::is_pointer_v<T> ||
                    !std::is_function_v<std::remove_pointer_t<T>>,
                "callbacks cannot cross the wire");
  static_assert(std::is_pointer_v<T> || sizeof(T) <= sizeof(Slot::value),
                "a value parameter larger than a slot");
  ParamShape s;
  s.valueBytes = uint32_t(sizeof(T));
  if constexpr (std::is_pointer_v<T>) {
    using P = std::remove_cv_t<std::remove_pointer_t<T>>;
    s.isPointer = true;
    s.pointeeBytes = rc::lib::pointeeBytes<T>();
    s.object = objectTag<T>();
    s.created = objectTag<P>();
  }
  return s;
}

template <class T> T argument(Slot &s) {
  if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<T>(s.pointer);
  } else {
    T v;
    std::memcpy(&v, s.value, sizeof(T));
    return v;
  }
}

template <class R, class... A, size_t... I>
int call(void *symbol, Slot *slots, std::index_sequence<I...>) {
  auto fn = reinterpret_cast<R (*)(A...)>(symbol);
  return int(fn(argument<A>(slots[I])...));
}

template <class F> struct Function;
template <class R, class... A> struct Function<R(A...)> {
  static_assert(std::is_integral_v<R> || std::is_enum_v<R>,
                "a served function returns a status");
  static int invoke(void *symbol, Slot *slots) {
    return call<R, A...>(symbol, slots, std::index_sequence_for<A...>{});
  }
  static Signature signature() { return {{shapeOf<A>()...}, &invoke}; }
};

} // namespace detail

// signatureOf<decltype(::curandGenerateUniform)>(): decltype names the
// type without using the function, so the server does not link the
// library (it is opened at run time).
template <class F> Signature signatureOf() {
  return detail::Function<F>::signature();
}

} // namespace rc::server::lib

#endif
