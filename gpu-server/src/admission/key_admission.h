// rc-server's check of the transport's admission proofs (rc/transport.h,
// "Admission"; docs/tenants.md, "Before authentication"): a client proves
// one of the server's keys before the listener opens a private endpoint or
// a shm region for it, so a peer without a key holds no more than a small
// record. The check is the Hello's (an unknown key id fails like a wrong
// proof, after the same work), and so is the back-off accounting: a right
// proof is always accepted, whatever others from its source or naming its
// key id got wrong; a wrong one counts against both and, while they back
// off, goes to the log at debug level only.
#ifndef RC_SERVER_KEY_ADMISSION_H
#define RC_SERVER_KEY_ADMISSION_H

#include "rc/auth/key_file.h"
#include "rc/server/auth_throttle.h"
#include "rc/server/key_ring.h"
#include "rc/transport.h"

#include <vector>

namespace rc::server {

// The check for a listener of a server with `keys` (empty: none; nobody
// is asked for a proof). `throttle` (may be null) outlives the listener.
transport::AdmissionCheck keyAdmission(const std::vector<auth::Key> &keys,
                                       AuthThrottle *throttle);
// The same for keys that SIGHUP may reload: each check reads the ring's
// keys of that moment. `ring` outlives the listener.
transport::AdmissionCheck keyAdmission(const KeyRing *ring,
                                       AuthThrottle *throttle);

} // namespace rc::server

#endif
