// Running helper programs (llvm-objcopy) without a shell, so paths with
// spaces or quotes need no escaping.
#ifndef RC_TOOLS_RUN_COMMAND_H
#define RC_TOOLS_RUN_COMMAND_H

#include <string>
#include <vector>

namespace rc::tools {

// Returns the exit status (or -1 if it could not run); on failure *error
// holds the command line and what went wrong.
int runCommand(const std::vector<std::string> &argv, std::string *error);

// llvm-objcopy to use: $RC_DEV_OBJCOPY, else the one found at configure time.
std::string objcopyPath();
// GNU objcopy (binutils), for --update-section (tools/CMakeLists.txt says
// why): $RC_DEV_GNU_OBJCOPY, else the one found at configure time.
std::string gnuObjcopyPath();

} // namespace rc::tools

#endif
