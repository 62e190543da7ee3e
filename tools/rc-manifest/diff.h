// `rc-manifest diff A B`: kernels added, removed, or changed in layout.
#ifndef RC_MANIFEST_DIFF_H
#define RC_MANIFEST_DIFF_H

#include "rc/manifest_file.h"

namespace rc::tools {

// Returns true if A and B list the same kernels with the same layouts.
bool diffManifests(const LoadedManifest &a, const LoadedManifest &b);

} // namespace rc::tools

#endif
