#include "session/version_skew.h"

#include "rc/version.h"
#include "rc/wire_message.h"

namespace rc::server {

namespace {

std::string describe(const std::string &release, uint32_t protocol,
                     uint32_t manifestFormat) {
  return "remote-clang " + release + " (protocol " + std::to_string(protocol) +
         ", manifest format " + std::to_string(manifestFormat) + ")";
}

std::string clientText(const wire::Hello &hello) {
  if (!hello.client_version())
    return "a remote-clang release from before versions were exchanged "
           "(protocol " +
           std::to_string(hello.protocol_version()) + ")";
  // The client's own words, bounded: they end up in a log line.
  std::string release = hello.client_version()->str().substr(0, 40);
  return describe(release, hello.protocol_version(), hello.manifest_format());
}

} // namespace

std::string serverVersionText() {
  return describe(kReleaseVersion, wire::kProtocolVersion, kManifestFormat);
}

std::string versionSkewRefusal(const wire::Hello &hello) {
  const uint32_t protocol = hello.protocol_version();
  // A client from before manifest_format was sent wrote format 1.
  const uint32_t format = hello.client_version() ? hello.manifest_format() : 1;
  const std::string both = "this client is " + clientText(hello) +
                           ", this server " + serverVersionText();
  if (protocol > wire::kProtocolVersion || format > kManifestFormat)
    return "the client is newer than rc-server: " + both +
           "; upgrade rc-server to the client's release (or rebuild the "
           "program with remote-clang " +
           kReleaseVersion + ")";
  if (protocol < wire::kProtocolVersion)
    return "the client is older than rc-server: " + both +
           "; rebuild the program with remote-clang " + kReleaseVersion +
           " (or serve it with an rc-server of its release)";
  return "";
}

std::string versionHint() {
  return " (a client of another remote-clang release? this server is " +
         serverVersionText() + ")";
}

void addServerVersion(wire::HelloReplyBuilder &reply,
                      flatbuffers::Offset<flatbuffers::String> release) {
  reply.add_server_version(release);
  reply.add_protocol_version(wire::kProtocolVersion);
  reply.add_manifest_format(kManifestFormat);
}

} // namespace rc::server
