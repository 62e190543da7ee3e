// Replaces a file rc-server writes for its operator (the --metrics file)
// as a whole, readable by the server's user only: the text goes into a
// fresh temporary file beside it (a random name, created with O_EXCL and
// O_NOFOLLOW and mode 0600, so a link or file planted in the directory is
// never written through), which is then renamed over the old one, so a
// reader never sees half of it. Only a regular file is ever replaced: a
// symbolic link, a device node, a directory or a pipe at the path is
// refused (a root server told --metrics /dev/full would otherwise put a
// file in place of the device).
#ifndef RC_SERVER_PRIVATE_FILE_H
#define RC_SERVER_PRIVATE_FILE_H

#include <string>

namespace rc::server {

// False with *error (naming the step and the system's reason) when `path`
// is not a regular file or absent, or the write fails; nothing is left
// behind then.
bool replacePrivateFile(const std::string &path, const std::string &text,
                        std::string *error);

} // namespace rc::server

#endif
