#include "metrics/private_file.h"
#include "rc/auth/proof.h"
#include "rc/hex.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rc::server {

namespace {

// Why `path` may not be replaced ("" when it may: a regular file, or
// nothing there yet).
std::string notRegular(const std::string &path) {
  struct stat st{};
  if (lstat(path.c_str(), &st) != 0)
    return errno == ENOENT
               ? ""
               : std::string("cannot look at it: ") + std::strerror(errno);
  if (S_ISREG(st.st_mode))
    return "";
  const char *what = S_ISLNK(st.st_mode) ? "a symbolic link"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                         ? "a device node"
                     : S_ISDIR(st.st_mode) ? "a directory"
                                           : "not a regular file";
  return std::string("it is ") + what +
         "; rc-server replaces only a regular file there (or makes one)";
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

} // namespace

bool replacePrivateFile(const std::string &path, const std::string &text,
                        std::string *error) {
  auto fail = [&](const std::string &why) {
    *error = path + ": " + why;
    return false;
  };
  if (std::string why = notRegular(path); !why.empty())
    return fail(why);
  uint8_t random[8];
  if (!auth::randomBytes(random, sizeof random))
    return fail("no random bytes for a temporary name");
  const std::string temp = directoryOf(path) + "/." + baseName(path) + ".tmp-" +
                           hexBytes(random, sizeof random);
  int fd = open(temp.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return fail("cannot create " + temp + ": " + std::strerror(errno));
  auto failRemoving = [&](const std::string &step) {
    std::string why = step + " " + temp + ": " + std::strerror(errno);
    if (fd >= 0)
      close(fd);
    unlink(temp.c_str());
    return fail(why);
  };
  // 0600 whatever the umask: the file lists every tenant's sessions.
  if (fchmod(fd, 0600) != 0)
    return failRemoving("cannot set the mode of");
  if (!writeAll(fd, text))
    return failRemoving("cannot write");
  int closed = close(fd);
  fd = -1;
  if (closed != 0)
    return failRemoving("cannot write");
  // Looked at again just before: what was planted meanwhile is refused too
  // (a link put there after this check is replaced, never followed).
  if (std::string why = notRegular(path); !why.empty()) {
    unlink(temp.c_str());
    return fail(why);
  }
  if (rename(temp.c_str(), path.c_str()) != 0)
    return failRemoving("cannot rename");
  return true;
}

} // namespace rc::server
