// rc-server --config FILE (docs/metrics.md, "Configuration and reload"):
// a TOML file whose keys are rc-server's options, e.g.
//   listen = "tcp://0.0.0.0:7070"
//   manifests = ["/srv/app.rcm"]
//   auth_key_file = "/etc/rc-server/keys"
//   quotas = "/etc/rc-server/quotas"
//   on_key_removed = "end"
//   metrics_listen = "127.0.0.1:9400"
// Each key stands for the option of the same name with - for _ (a list
// for a repeatable one, true for a switch); the file becomes those
// options, put before the command line's, so that a flag given there
// overrides the file's (a repeatable one adds to it). Parsed with toml++
// (Debian's libtomlplusplus-dev).
#ifndef RC_SERVER_CONFIG_FILE_H
#define RC_SERVER_CONFIG_FILE_H

#include <string>
#include <vector>

namespace rc::server {

// The options FILE stands for ("--listen=tcp://...", "--test-device"); false
// with *error naming the file, the line and the key on a syntax error, an
// unknown key or a value of the wrong kind.
bool configFileOptions(const std::string &path, std::vector<std::string> *out,
                       std::string *error);

} // namespace rc::server

#endif
