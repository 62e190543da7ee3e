// `rc-link embed`: completes a translation unit's fragment with the object's
// fatbin and stores it in the object's .rc_manifest section.
#ifndef RC_LINK_EMBED_H
#define RC_LINK_EMBED_H

#include <string>

namespace rc::link {

// Returns 0 on success, 1 on an error (printed to stderr).
int embedFragment(const std::string &object, const std::string &fragment);

} // namespace rc::link

#endif
