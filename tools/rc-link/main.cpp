// rc-link: the link-time half of remote-clang (docs/manifest.md).
//   rc-link embed --object X.o --fragment F
//   rc-link merge --binary APP [-o OUT.rcm] [--keep-section]
//   rc-link merge --fragments F... -o OUT.rcm
#include "embed.h"
#include "merge.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static const char kUsage[] =
    "usage:\n"
    "  rc-link embed --object OBJ --fragment FRAG\n"
    "      Put OBJ's fatbin (.nv_fatbin) into the one-module manifest FRAG "
    "and\n"
    "      add the result to OBJ as section .rc_manifest.\n"
    "  rc-link merge --binary BIN [-o OUT] [--keep-section]\n"
    "      Merge the fragments in BIN's .rc_manifest section into OUT\n"
    "      (default BIN.rcm), then remove the section from BIN.\n"
    "  rc-link merge --fragments FRAG... -o OUT\n"
    "      Merge fragment files (manifests or framed fragments) into OUT.\n"
    "Exit status: 0 ok, 1 error (ID collision, bad input), 2 usage.\n";

static int usage(const char *why) {
  if (why)
    std::fprintf(stderr, "rc-link: error: %s\n", why);
  std::fputs(kUsage, stderr);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage("no command given");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::string object, fragment, binary, output;
  std::vector<std::string> fragments;
  bool keep = false, fragmentList = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &dst) {
      if (i + 1 >= argc)
        return false;
      dst = argv[++i];
      return true;
    };
    if (a == "--object" && value(object)) {
    } else if (a == "--fragment" && value(fragment)) {
    } else if (a == "--binary" && value(binary)) {
    } else if (a == "-o" && value(output)) {
    } else if (a == "--keep-section") {
      keep = true;
    } else if (a == "--fragments") {
      fragmentList = true;
    } else if (fragmentList && !a.empty() && a[0] != '-') {
      fragments.push_back(a);
    } else {
      return usage(("unknown or incomplete argument '" + a + "'").c_str());
    }
  }
  if (cmd == "embed") {
    if (object.empty() || fragment.empty())
      return usage("embed needs --object and --fragment");
    return rc::link::embedFragment(object, fragment);
  }
  if (cmd == "merge") {
    if (!binary.empty() && !fragmentList)
      return rc::link::mergeBinary(binary, output, keep);
    if (fragmentList && binary.empty() && !fragments.empty() && !output.empty())
      return rc::link::mergeFiles(fragments, output);
    return usage(
        "merge needs either --binary BIN or --fragments FRAG... -o OUT");
  }
  return usage(("unknown command '" + cmd + "'").c_str());
}
