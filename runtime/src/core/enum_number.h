// An enum value a program hands in (an argument, a field of a struct it
// filled) is read as the number it holds: a value outside the enum must
// reach the check that refuses it, and loading it as the enum type is
// undefined behaviour (UBSan's -fsanitize=enum stops there).
#ifndef RC_RT_ENUM_NUMBER_H
#define RC_RT_ENUM_NUMBER_H

#include <cstring>

namespace rc::rt {

template <class Enum> int enumNumber(const Enum &value) {
  static_assert(sizeof(Enum) == sizeof(int), "an enum of int's size");
  int number;
  std::memcpy(&number, &value, sizeof number);
  return number;
}

} // namespace rc::rt

#endif
