// librc_npp: NPP served by rc-server's NPP libraries (docs/libraries.md).
// Its entry points are generated from the rows of
// abi/include/rc/libcalls/npp.def; this is the one that needs more:
// nppGetLibVersion returns a pointer, not a status, so it answers the
// version of the headers the program was built against (rc-server's NPP
// serves at least their API).
#include <npp.h>

extern "C" __attribute__((visibility("default"))) const NppLibraryVersion *
nppGetLibVersion() {
  static const NppLibraryVersion version = {NPP_VER_MAJOR, NPP_VER_MINOR,
                                            NPP_VER_PATCH};
  return &version;
}
