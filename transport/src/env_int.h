// Integer knobs from the environment (RC_TRANSPORT_*), with the parsing
// kept apart so tests can check it without setting variables.
#ifndef RC_TRANSPORT_ENV_INT_H
#define RC_TRANSPORT_ENV_INT_H

namespace rc::transport::detail {

// A whole decimal number >= minimum (and within int): true and *out set;
// anything else (empty, "12x", "-1" below a minimum of 0, overflow): false.
bool parseIntAtLeast(const char *text, int minimum, int *out);

// The variable's value if it parses, else `fallback` (unset variables too).
int envIntAtLeast(const char *name, int minimum, int fallback);

} // namespace rc::transport::detail

#endif
