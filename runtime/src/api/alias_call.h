// The body of every alias of runtime/coverage/aliases.txt: a declared
// function served through another served one (a deprecated name, a
// driver-API call that is a runtime call under other type names).
// gen_unsupported_stubs.py generates each as
//   rc::alias::Ret<decltype(::cuEventRecord)> cuEventRecord(
//       rc::alias::Param<decltype(::cuEventRecord), 0> a0, ...) {
//     return rc::alias::call<decltype(::cuEventRecord)>(::cudaEventRecord,
//                                                        a0, a1);
//   }
// The compiler checks every alias: each argument must reach the target's
// parameter as the same thing under another name (a conversion below),
// and the result likewise; anything else does not compile. Types that are
// the same thing to the ABI under two names (a driver enum and its runtime
// twin, two structs of one layout) are declared so by a specialization of
// SameAs whose static_asserts prove it (runtime/cuda/cu_alias_types.h).
#ifndef RC_RT_ALIAS_CALL_H
#define RC_RT_ALIAS_CALL_H

#include "function_types.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>

namespace rc::alias {

// The types of a declaration (function_types.h).
using rc::Param;
using rc::Ret;

// A and B mean the same values with the same layout (specialized, with
// proof, where two APIs name one thing twice).
template <class A, class B> struct SameAs : std::false_type {};

template <class A, class B>
constexpr bool same =
    std::is_same_v<A, B> || SameAs<A, B>::value || SameAs<B, A>::value;

// Two pointees a pointer may be reinterpreted between: the same type under
// two names, integers of one size and signedness (cuuint64_t and unsigned
// long long), a device address and a pointer (CUdeviceptr and void *), or
// handles (pointers) to the same kind of thing.
template <class From, class To> constexpr bool samePointee() {
  using F = std::remove_cv_t<From>;
  using T = std::remove_cv_t<To>;
  if constexpr (same<F, T>)
    return true;
  else if constexpr (std::is_integral_v<F> && std::is_integral_v<T>)
    return sizeof(F) == sizeof(T) && std::is_signed_v<F> == std::is_signed_v<T>;
  else if constexpr (std::is_integral_v<F> && std::is_pointer_v<T>)
    return sizeof(F) == sizeof(T) && std::is_unsigned_v<F>;
  else if constexpr (std::is_pointer_v<F> && std::is_pointer_v<T>)
    return samePointee<std::remove_pointer_t<F>, std::remove_pointer_t<T>>();
  else
    return false;
}

template <class> constexpr bool kNoConversion = false;

// One argument, as the target's parameter type `To`.
template <class To, class From> To convert(From v) {
  constexpr bool arithmetic =
      std::is_arithmetic_v<From> && std::is_arithmetic_v<To>;
  constexpr bool toVoidPointer =
      std::is_pointer_v<To> && std::is_void_v<std::remove_pointer_t<To>>;
  if constexpr (std::is_same_v<From, To> || ((arithmetic || toVoidPointer) &&
                                             std::is_convertible_v<From, To>))
    return v;
  else if constexpr (std::is_enum_v<From> && std::is_enum_v<To>) {
    static_assert(same<From, To>, "two enums not proven to share numbering");
    // As the number it holds: a program may pass one that is no value of
    // the enum, which the target refuses (core/enum_number.h).
    To to;
    std::memcpy(&to, &v, sizeof to);
    return to;
  } else if constexpr (std::is_class_v<From> || std::is_union_v<From>) {
    // A struct passed by value (a CUmemLocation for a cudaMemLocation).
    static_assert(same<From, To>, "structs not proven to share a layout");
    To to;
    std::memcpy(&to, &v, sizeof to);
    return to;
  } else if constexpr (std::is_integral_v<From> && std::is_pointer_v<To>) {
    // A driver device address (CUdeviceptr) where the runtime takes a
    // pointer.
    static_assert(sizeof(From) == sizeof(To) && std::is_unsigned_v<From>);
    return reinterpret_cast<To>(uintptr_t(v));
  } else if constexpr (std::is_pointer_v<From> && std::is_pointer_v<To>) {
    static_assert(
        samePointee<std::remove_pointer_t<From>, std::remove_pointer_t<To>>(),
        "pointers to things not proven to be the same");
    static_assert(!std::is_const_v<std::remove_pointer_t<From>> ||
                      std::is_const_v<std::remove_pointer_t<To>>,
                  "an alias may not drop const");
    return reinterpret_cast<To>(reinterpret_cast<uintptr_t>(v));
  } else {
    static_assert(kNoConversion<From>, "argument types differ");
    return To();
  }
}

// The target's result `v` as the alias's result type `R`: the same type,
// or a conversion a specialization of ResultAs provides (the driver's
// CUresult of a runtime cudaError_t).
template <class R, class T> struct ResultAs;
template <class R, class T> R result(T v) {
  if constexpr (std::is_same_v<R, T>)
    return v;
  else
    return ResultAs<R, T>::from(v);
}

template <class Alias, class R, class... P, class... A>
Ret<Alias> call(R (*target)(P...), A... args) {
  static_assert(sizeof...(P) == sizeof...(A),
                "an alias takes its target's parameters, in order");
  if constexpr (std::is_void_v<R>)
    target(convert<P>(args)...);
  else
    return result<Ret<Alias>>(target(convert<P>(args)...));
}

} // namespace rc::alias

#endif
