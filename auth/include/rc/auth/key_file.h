// Shared keys for authenticating clients to rc-server (docs/security.md).
// A key file holds one key per line, "KEY-ID SECRET", where SECRET is 64 to
// 128 hex digits (32 to 64 random bytes); blank lines and lines starting
// with '#' are ignored. The server accepts every key of its file; a client
// proves it holds the first key of its own file and names it by its id, so
// that each tenant can get a key of its own.
#ifndef RC_AUTH_KEY_FILE_H
#define RC_AUTH_KEY_FILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace rc::auth {

struct Key {
  std::string id;
  std::vector<uint8_t> secret;
};

// 1 to 64 characters of [A-Za-z0-9._@-]: safe to print in logs and errors.
bool validKeyId(const std::string &id);

// Parses key file text; `origin` names the file in errors, which also give
// the line ("F line 3: ..."). Fails on an empty file and on repeated ids.
bool parseKeys(const std::string &text, const std::string &origin,
               std::vector<Key> *keys, std::string *error);

// Reads and parses a key file. It must be a regular file that neither its
// group nor others may read or write (like ssh's private keys): a secret
// other local users can read proves nothing.
bool loadKeyFile(const std::string &path, std::vector<Key> *keys,
                 std::string *error);

// Writes a new key file at `path` holding one fresh random 32-byte key named
// `id`, with mode 0600. Never overwrites: an existing file is an error.
bool writeNewKeyFile(const std::string &path, const std::string &id,
                     std::string *error);

} // namespace rc::auth

#endif
