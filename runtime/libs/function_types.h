// The return and parameter types of a function's declaration, as the
// generated entry points spell theirs: Ret<decltype(::f)>,
// Param<decltype(::f), 0>. Library rows' forwarders (lib_forward.h) and
// the aliases of served calls (api/alias_call.h) both type their
// parameters by them.
#ifndef RC_FUNCTION_TYPES_H
#define RC_FUNCTION_TYPES_H

#include <cstddef>
#include <tuple>

namespace rc {

template <class F> struct FunctionTypes;
template <class R, class... A> struct FunctionTypes<R(A...)> {
  using Ret = R;
  using Params = std::tuple<A...>;
};
template <class F> using Ret = typename FunctionTypes<F>::Ret;
template <class F, size_t I>
using Param = std::tuple_element_t<I, typename FunctionTypes<F>::Params>;

} // namespace rc

#endif
