#include "rc/auth/key_file.h"
#include "rc/auth/proof.h"
#include "rc/hex.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::auth {

namespace {

constexpr size_t kMinSecretBytes = 32;
constexpr size_t kMaxSecretBytes =
    64; // HMAC-SHA256's block: longer adds nothing
constexpr size_t kGeneratedSecretBytes = 32;
constexpr off_t kMaxFileBytes = 1 << 20;

std::string octalMode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
  return buf;
}

} // namespace

bool validKeyId(const std::string &id) {
  if (id.empty() || id.size() > 64)
    return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '@' && c != '-')
      return false;
  return true;
}

bool parseKeys(const std::string &text, const std::string &origin,
               std::vector<Key> *keys, std::string *error) {
  keys->clear();
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::istringstream fields(line);
    std::string id, secret, extra;
    if (!(fields >> id) || id[0] == '#')
      continue;
    auto fail = [&](const std::string &why) {
      *error = origin + " line " + std::to_string(number) + ": " + why +
               " (expected \"KEY-ID SECRET\", SECRET being " +
               std::to_string(kMinSecretBytes * 2) + " to " +
               std::to_string(kMaxSecretBytes * 2) +
               " hex digits; rc-server keygen FILE writes one)";
      keys->clear();
      return false;
    };
    if (!validKeyId(id))
      return fail("key id '" + id.substr(0, 64) +
                  "' is not 1 to 64 characters of A-Z a-z 0-9 . _ @ -");
    if (!(fields >> secret))
      return fail("key '" + id + "' has no secret");
    if (fields >> extra)
      return fail("key '" + id + "' has more than one secret");
    Key key{id, {}};
    if (!parseHexBytes(secret, &key.secret))
      return fail("the secret of key '" + id + "' is not hex digits");
    if (key.secret.size() < kMinSecretBytes ||
        key.secret.size() > kMaxSecretBytes)
      return fail("the secret of key '" + id + "' has " +
                  std::to_string(secret.size()) + " hex digits");
    for (const Key &k : *keys)
      if (k.id == id)
        return fail("key id '" + id + "' appears twice");
    keys->push_back(std::move(key));
  }
  if (keys->empty()) {
    *error = origin + " holds no key (expected lines \"KEY-ID SECRET\"; "
                      "rc-server keygen FILE writes one)";
    return false;
  }
  return true;
}

bool loadKeyFile(const std::string &path, std::vector<Key> *keys,
                 std::string *error) {
  keys->clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open key file " + path + ": " + std::strerror(errno);
    return false;
  }
  // The checks apply to what was opened, not to what the path names later.
  struct stat st{};
  std::string why;
  if (fstat(fd, &st) != 0)
    why = std::string("cannot stat it: ") + std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = "it is not a regular file";
  else if (st.st_mode & (S_IRWXG | S_IRWXO))
    why = "its mode " + octalMode(st.st_mode) +
          " lets its group or others read or change it; run chmod 600 " + path;
  else if (st.st_size > kMaxFileBytes)
    why = "it has " + std::to_string(st.st_size) + " bytes, more than a key " +
          "file can need";
  std::string text;
  if (why.empty()) {
    text.resize(size_t(st.st_size));
    ssize_t n = read(fd, text.data(), text.size());
    if (n < 0)
      why = std::string("cannot read it: ") + std::strerror(errno);
    text.resize(n < 0 ? 0 : size_t(n));
  }
  close(fd);
  if (!why.empty()) {
    *error = "refusing key file " + path + ": " + why;
    return false;
  }
  return parseKeys(text, "key file " + path, keys, error);
}

bool writeNewKeyFile(const std::string &path, const std::string &id,
                     std::string *error) {
  if (!validKeyId(id)) {
    *error =
        "key id '" + id + "' is not 1 to 64 characters of A-Z a-z 0-9 . _ @ -";
    return false;
  }
  uint8_t secret[kGeneratedSecretBytes];
  if (!randomBytes(secret, sizeof secret)) {
    *error = "no random bytes from the system for a new key";
    return false;
  }
  std::string text = "# remote-clang key file (docs/security.md): one key per "
                     "line, \"KEY-ID SECRET\".\n"
                     "# rc-server --auth-key-file FILE accepts its keys; a "
                     "client with RC_AUTH_KEY_FILE=FILE\n"
                     "# uses the first one. Keep it private (mode 0600).\n" +
                     id + " " + hexBytes(secret, sizeof secret) + "\n";
  std::memset(secret, 0, sizeof secret);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot create key file " + path + ": " + std::strerror(errno) +
             (errno == EEXIST ? " (a key file is never overwritten; remove it "
                                "first to replace its keys)"
                              : "");
    return false;
  }
  // 0600 whatever the umask was: the file is of no use with looser modes.
  bool ok = fchmod(fd, 0600) == 0 &&
            write(fd, text.data(), text.size()) == ssize_t(text.size()) &&
            fsync(fd) == 0;
  int savedErrno = errno;
  std::fill(text.begin(), text.end(), '\0');
  if (close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    unlink(path.c_str());
    *error = "cannot write key file " + path + ": " + std::strerror(savedErrno);
  }
  return ok;
}

} // namespace rc::auth
