#include "run_command.h"

#include "rc/env_reader.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

namespace rc::tools {

std::string objcopyPath() {
  return EnvReader().text("RC_DEV_OBJCOPY", RC_LLVM_OBJCOPY);
}

std::string gnuObjcopyPath() {
  return EnvReader().text("RC_DEV_GNU_OBJCOPY", RC_GNU_OBJCOPY);
}

int runCommand(const std::vector<std::string> &argv, std::string *error) {
  std::string line;
  std::vector<char *> args;
  for (const std::string &a : argv) {
    line += (line.empty() ? "" : " ") + a;
    args.push_back(const_cast<char *>(a.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (rc != 0) {
    if (error)
      *error = "cannot run '" + line + "': " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  if (code != 0 && error)
    *error = "'" + line + "' failed with exit status " + std::to_string(code);
  return code;
}

} // namespace rc::tools
