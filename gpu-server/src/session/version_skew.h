// Which clients of another remote-clang release rc-server serves, and what
// it tells the others (docs/design/version-skew.md): a session is served
// when the client's protocol revision is the server's and its manifest
// format one the server reads; the release alone never refuses. A refusal
// is one sentence naming both releases and revisions and what to upgrade.
#ifndef RC_SERVER_VERSION_SKEW_H
#define RC_SERVER_VERSION_SKEW_H

#include "protocol_generated.h"

#include <string>

namespace rc::server {

// Empty when a client that said `hello` is served; else the refusal.
std::string versionSkewRefusal(const wire::Hello &hello);

// For a first message that is no Hello this release can read: what to add
// to the refusal, in case the client is of another release.
std::string versionHint();

// "remote-clang 0.1.0 (protocol 1, manifest format 1)": this server.
std::string serverVersionText();

// Adds server_version, protocol_version and manifest_format to a
// HelloReply being built.
// `release`: fbb.CreateString(kReleaseVersion), made before the builder.
void addServerVersion(wire::HelloReplyBuilder &reply,
                      flatbuffers::Offset<flatbuffers::String> release);

} // namespace rc::server

#endif
