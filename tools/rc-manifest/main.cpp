// rc-manifest: inspect and check remote-clang manifests (.rcm, fragments).
#include "build_identity.h"
#include "describe.h"
#include "diff.h"
#include "verify.h"

#include "rc/manifest_file.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static const char kUsage[] =
    "usage: rc-manifest COMMAND [--json] ARGS\n"
    "  list [--json] FILE        kernels: ID, demangled name, module, params\n"
    "  show [--json] FILE KEY    one kernel's parameter layout and launch "
    "sites;\n"
    "                            KEY is 0x<hex ID>, a mangled name, a "
    "demangled\n"
    "                            name, or a name without its parameter list\n"
    "  verify FILE...            check every kernel's layout against the\n"
    "                            EIATTR_KPARAM_INFO records of its cubins\n"
    "  diff A B                  kernels added (+), removed (-), renamed (!),\n"
    "                            or with a changed layout (~)\n"
    "  build-id FILE...          the build identity of a binary (from its\n"
    "                            device code) or a manifest: a binary's own\n"
    "                            manifest has the same\n"
    "FILE is a merged manifest (<binary>.rcm) or a fragment.\n"
    "Exit status: 0 ok / no difference, 1 mismatch / difference / bad input,\n"
    "2 usage error.\n";

static int usage(const std::string &why) {
  std::fprintf(stderr, "rc-manifest: error: %s\n%s", why.c_str(), kUsage);
  return 2;
}

static bool load(const std::string &path, rc::LoadedManifest &m) {
  std::string err;
  if (rc::loadManifest(path, m, &err))
    return true;
  std::fprintf(stderr, "rc-manifest: error: %s\n", err.c_str());
  return false;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage("no command given");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  bool json = false;
  std::vector<std::string> args;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else if (argv[i][0] == '-' && argv[i][1] != 0)
      return usage(std::string("unknown option '") + argv[i] + "'");
    else
      args.push_back(argv[i]);
  }
  if (cmd == "list") {
    if (args.size() != 1)
      return usage("list takes one FILE");
    rc::LoadedManifest m;
    if (!load(args[0], m))
      return 1;
    return rc::tools::listKernels(*m.root, json);
  }
  if (cmd == "show") {
    if (args.size() != 2)
      return usage("show takes FILE and a kernel ID or name");
    rc::LoadedManifest m;
    if (!load(args[0], m))
      return 1;
    auto found = rc::tools::findKernels(*m.root, args[1]);
    if (found.empty()) {
      std::fprintf(stderr, "rc-manifest: error: %s: no kernel matches '%s'\n",
                   args[0].c_str(), args[1].c_str());
      return 1;
    }
    if (found.size() > 1) {
      std::fprintf(stderr,
                   "rc-manifest: error: %s: '%s' matches %zu kernels:\n",
                   args[0].c_str(), args[1].c_str(), found.size());
      for (auto *k : found)
        std::fprintf(stderr, "  %s %s\n", rc::tools::hexId(k->id()).c_str(),
                     rc::tools::displayName(*k).c_str());
      return 1;
    }
    rc::tools::showKernel(*m.root, *found[0], json);
    return 0;
  }
  if (cmd == "verify") {
    if (args.empty() || json)
      return usage("verify takes one or more FILEs (no --json)");
    bool ok = true;
    for (const std::string &f : args) {
      rc::LoadedManifest m;
      ok = load(f, m) && rc::tools::verifyManifest(m) && ok;
    }
    return ok ? 0 : 1;
  }
  if (cmd == "build-id") {
    if (args.empty() || json)
      return usage("build-id takes one or more FILEs (no --json)");
    return rc::tools::printBuildIds(args) ? 0 : 1;
  }
  if (cmd == "diff") {
    if (args.size() != 2 || json)
      return usage("diff takes two FILEs (no --json)");
    rc::LoadedManifest a, b;
    if (!load(args[0], a) || !load(args[1], b))
      return 1;
    return rc::tools::diffManifests(a, b) ? 0 : 1;
  }
  return usage("unknown command '" + cmd + "'");
}
