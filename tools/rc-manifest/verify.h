// `rc-manifest verify`: every kernel's recorded layout must equal what ptxas
// wrote into the cubins (EIATTR_KPARAM_INFO); see common/fatbin_images.h.
#ifndef RC_MANIFEST_VERIFY_H
#define RC_MANIFEST_VERIFY_H

#include "rc/manifest_file.h"

namespace rc::tools {

// Prints one line per mismatch and a summary; returns true if all match.
bool verifyManifest(const LoadedManifest &m);

} // namespace rc::tools

#endif
