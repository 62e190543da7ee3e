// rc-server: serves remote-clang clients. See docs/server.md.
#include "config_file.h"
#include "gpu_sharing/gpu_sharing.h"
#include "isolation/isolated_server.h"
#include "metrics/metrics_http.h"
#include "metrics/server_exposition.h"
#include "rc/auth/key_file.h"
#include "rc/server/listen_policy.h"
#include "rc/server/log.h"
#include "rc/server/server_core.h"
#include "rc/server/service_notify.h"
#include "rc/server/tenant_quotas.h"
#include "rc/transport.h"
#include "session/transport_sealing.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace rc::server;

namespace {

ProcessSignals gSignals;
extern "C" void onSignal(int sig) {
  gSignals.last = sig;
  ++gSignals.count;
  gSignals.stop = true;
}
// SIGHUP: reload the keys and quotas (serveForever does it).
std::atomic<bool> gReload{false};
extern "C" void onReload(int) { gReload = true; }

const char kUsage[] =
    "usage: rc-server --listen URL --manifest PATH [--manifest PATH ...]\n"
    "                 [--auth-key-file FILE | --insecure]\n"
    "                 [--insecure-transport]\n"
    "                 [--test-device] [--test-devices N]\n"
    "                 [--log-level quiet|info|debug] [--log-format text|json]\n"
    "                 [--devices LIST]\n"
    "                 [--metrics FILE] [--metrics-listen ADDR:PORT\n"
    "                 [--metrics-token-file FILE]]\n"
    "                 [--isolation none|process] [--warm-workers N]\n"
    "                 [--gpu-sharing auto|mps|timeslice]\n"
    "                 [--max-workers N] [--quotas FILE] [--cache SIZE]\n"
    "                 [--cache-dir DIR] [--cache-disk SIZE]\n"
    "                 [--config FILE] [--on-key-removed keep|end]\n"
    "       rc-server keygen FILE [--key-id ID]\n"
    "\n"
    "Serves remote-clang applications: every kernel of the given manifests\n"
    "is loaded and resolved at start-up, then each client gets a session\n"
    "with its own CUDA context.\n"
    "\n"
    "  --listen URL       tcp://HOST:PORT (across hosts) or shm://NAME (same\n"
    "                     host)\n"
    "  --manifest PATH    a binary's manifest (<binary>.rcm); repeatable;\n"
    "                     clients must have been built with one of them\n"
    "                     (without any: programs that launch no kernels of\n"
    "                     their own, e.g. cuBLAS or driver-API only)\n"
    "  --test-device      no GPU: host memory behind fake device addresses;\n"
    "                     launches are validated and recorded, not run\n"
    "  --auth-key-file F  clients must prove they hold a key of F (made by\n"
    "                     rc-server keygen; clients: RC_AUTH_KEY_FILE); F\n"
    "                     must not be readable by its group or others\n"
    "  --insecure         serve a tcp address other than loopback without\n"
    "                     --auth-key-file (refused otherwise): anyone who\n"
    "                     can reach it may use the GPUs\n"
    "  --insecure-transport  leave connections in the clear after the\n"
    "                     key exchange (tcp clients off this host are\n"
    "                     otherwise encrypted and authenticated with keys\n"
    "                     derived from it)\n"
    "  --log-level L      quiet, info (default) or debug\n"
    "  --log-format F     text (default: key=value fields) or json (one\n"
    "                     object a line); docs/metrics.md, \"Logs\"\n"
    "  --test-devices N   with --test-device: N test devices (default 1)\n"
    "  --devices LIST     CUDA device ordinals clients see, e.g. 0,1 "
    "(default:\n"
    "                     every visible GPU); --device N is --devices N\n"
    "  --metrics FILE     per-session counters (commands by type, bytes,\n"
    "                     replay and reply time) as JSON, rewritten about\n"
    "                     once a second while clients are connected\n"
    "  --metrics-listen ADDR:PORT  serve GET /metrics in Prometheus' text\n"
    "                     format (ADDR defaults to 127.0.0.1; port 0: any\n"
    "                     free one, logged); with --isolation process the\n"
    "                     supervisor's, summed from its workers';\n"
    "                     docs/metrics.md\n"
    "  --metrics-token-file F  scrapers must send 'Authorization: Bearer\n"
    "                     TOKEN', TOKEN the first line of F (mode 0600);\n"
    "                     required for an ADDR other than loopback\n"
    "  --isolation MODE   none (default): all sessions in this process; a\n"
    "                     sticky GPU error in one restarts the server for\n"
    "                     all. process: every session in a worker process\n"
    "                     of its own, so a fault ends only its session\n"
    "  --warm-workers N   with --isolation process: workers kept started\n"
    "                     ahead of clients (default 1)\n"
    "  --max-workers N    with --isolation process: sessions at once\n"
    "                     (default 32)\n"
    "  --gpu-sharing M    mps: sessions' kernels run side by side through\n"
    "                     an NVIDIA MPS daemon rc-server starts and\n"
    "                     supervises; timeslice: the GPU switches between\n"
    "                     sessions' contexts; auto (default): mps where\n"
    "                     nvidia-cuda-mps-control and a GPU exist, unless\n"
    "                     --isolation process serves several tenants\n"
    "  --quotas FILE      per-tenant bounds; a tenant is a key id of\n"
    "                     --auth-key-file. Lines: TENANT sessions=N\n"
    "                     device=SIZE pinned=SIZE priority=high|normal\n"
    "                     sm=PERCENT (under MPS) (SIZE: 8GiB, 512MiB, ...),\n"
    "                     TENANT a key id or * for every other tenant\n"
    "  --cache SIZE       keep chunks of uploads (4 MiB each) in SIZE of\n"
    "                     pinned host memory across sessions, one\n"
    "                     namespace per tenant: a repeated upload sends\n"
    "                     hashes, not bytes (default: no cache)\n"
    "  --cache-dir DIR    keep the cache's chunks in DIR too, so that a\n"
    "                     restarted server still holds them\n"
    "  --cache-disk SIZE  what DIR holds at most (default: 4 x --cache)\n"
    "  --config FILE      options from a TOML file (keys: the options'\n"
    "                     names with _ for -); flags override it\n"
    "  --on-key-removed keep|end  when SIGHUP reloads the key file and a\n"
    "                     key is gone: its live sessions keep running\n"
    "                     (default) or end. SIGHUP rereads --auth-key-file\n"
    "                     and --quotas (docs/metrics.md)\n"
    "  --help             this text\n"
    "\n"
    "rc-server keygen FILE writes a new key file (mode 0600) holding one\n"
    "random 256-bit key named ID (default \"default\"); it never\n"
    "overwrites a file. Give the server and each client a copy.\n";

// "0,2" -> {0, 2}; false on anything else (empty items, signs, repeats).
bool parseOrdinals(const std::string &text, std::vector<int> *out) {
  out->clear();
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    std::string item = text.substr(
        at, comma == std::string::npos ? std::string::npos : comma - at);
    char *end = nullptr;
    long n = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || item[0] == '-' || item[0] == '+' || n > 1024)
      return false;
    for (int seen : *out)
      if (seen == n)
        return false;
    out->push_back(int(n));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return !out->empty();
}

int usageError(const std::string &why) {
  std::fprintf(stderr, "rc-server: %s\n(run rc-server --help for usage)\n",
               why.c_str());
  return 2;
}

// No other process, though it runs as this user (every shm client does),
// may read or write this one's memory: ptrace, process_vm_writev and
// /proc/PID/mem need a dumpable target. Over shm a client then reaches only
// the files its own session shares with it (docs/transport-internals/memory.md,
// "Memory a peer may write"). RC_DEV_SERVER_DUMPABLE=1 leaves the process
// dumpable, for gdb -p, core dumps and /proc/PID/fd, and opens that door again.
void denyMemoryAccessByOtherProcesses(bool keepDumpable) {
  if (keepDumpable) {
    logInfo("RC_DEV_SERVER_DUMPABLE=1: processes of this user may read and "
            "write rc-server's memory");
    return;
  }
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    logError(std::string("cannot make rc-server non-dumpable: ") +
             std::strerror(errno));
}

// Open files up to the hard limit: a tcp session holds its connection and
// 2 x RC_DEV_TCP_LANES lane sockets (17 by default), so the usual soft
// limit of 1024 would refuse a server's sixtieth tcp session, while the
// hard limit (systemd's default 524288) is the operator's real bound.
// Workers inherit it. Nothing here uses select(), the one call that
// breaks on descriptors past 1024.
void raiseOpenFileLimit() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur >= files.rlim_max)
    return;
  files.rlim_cur = files.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &files) != 0)
    logInfo(std::string("warning: cannot raise the open-file limit: ") +
            std::strerror(errno));
}

// rc-server keygen FILE [--key-id ID]
int keygen(int argc, char **argv) {
  std::string path, id = "default";
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--key-id" && i + 1 < argc)
      id = argv[++i];
    else if (arg.rfind("--key-id=", 0) == 0)
      id = arg.substr(9);
    else if (arg.rfind("--", 0) != 0 && path.empty())
      path = arg;
    else
      return usageError("keygen: unexpected argument '" + arg +
                        "' (usage: rc-server keygen FILE [--key-id ID])");
  }
  if (path.empty())
    return usageError("keygen needs the key file to write (usage: rc-server "
                      "keygen FILE [--key-id ID])");
  if (!rc::auth::validKeyId(id))
    return usageError("keygen: key id '" + id +
                      "' is not 1 to 64 characters of A-Z a-z 0-9 . _ @ -");
  std::string error;
  if (!rc::auth::writeNewKeyFile(path, id, &error)) {
    std::fprintf(stderr, "rc-server: %s\n", error.c_str());
    return 1;
  }
  std::printf("rc-server: wrote key '%s' to %s (mode 0600). Start the server "
              "with --auth-key-file %s and give each client a copy "
              "(RC_AUTH_KEY_FILE=FILE, mode 0600).\n",
              id.c_str(), path.c_str(), path.c_str());
  return 0;
}

// The options: those of --config FILE (if given) first, then the command
// line's, so that a flag overrides the file (config_file.h).
bool commandLine(int argc, char **argv, std::vector<std::string> *args,
                 std::string *error) {
  std::string file;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string given;
    if (arg == "--config")
      given = i + 1 < argc ? argv[i + 1] : "";
    else if (arg.rfind("--config=", 0) == 0)
      given = arg.substr(9);
    else
      continue;
    if (given.empty()) {
      *error = "--config needs a file name";
      return false;
    }
    if (!file.empty()) {
      *error = "--config may be given once";
      return false;
    }
    file = given;
  }
  if (!file.empty() && !configFileOptions(file, args, error))
    return false;
  args->insert(args->end(), argv + 1, argv + argc);
  return true;
}

} // namespace

// After SIGTERM: no new session (the listener is closed, so clients that
// come meanwhile knock until their connect timeout, e.g. for a restarted
// server), and the live ones finish within `drainMs`.
static void drain(ServerCore &core,
                  std::unique_ptr<rc::transport::Listener> &listener,
                  uint64_t drainMs) {
  listener.reset();
  logInfo({"draining"},
          "draining: " + std::to_string(core.liveSessions()) +
              " live sessions may finish within " + std::to_string(drainMs) +
              " ms; no new sessions (a second signal stops at once)");
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(drainMs);
  while (core.liveSessions() > 0 && gSignals.count == 1 && !core.deviceLost() &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

// Returns 0 on a signal, 1 on errors, 3 when the GPU state was lost.
static int serveForever(ServerCore &core, const std::string &url,
                        const ServerLimits &limits, uint64_t drainMs) {
  std::string error;
  rc::transport::ListenOptions listenOptions = limits.listenOptions();
  listenOptions.admit = core.admission();
  std::unique_ptr<rc::transport::Listener> listener =
      rc::transport::listen(url, listenOptions, &error);
  if (!listener) {
    logError({"listen_failed"}, "cannot listen: " + error);
    return 1;
  }
  logInfo({"listening"},
          core.summary() + "; listening on " + listener->address());
  announceReady(listener->address());
  while (!gSignals.stop) {
    if (gReload.exchange(false)) {
      std::string summary, why;
      if (core.reload(&summary, &why))
        logInfo({"reloaded"}, "reloaded: " + summary);
      else
        logError({"reload_failed"}, "reload refused, nothing changed: " + why);
    }
    if (core.deviceLost()) {
      logError({"gpu_state_lost"},
               "GPU state lost (" + core.deviceLostReason() +
                   "): closing all sessions and restarting");
      core.stop();
      return 3;
    }
    std::unique_ptr<rc::transport::Connection> conn = listener->accept(200);
    if (conn)
      core.serve(std::move(conn));
  }
  if (gSignals.stop)
    announceStopping();
  if (gSignals.last == SIGTERM && drainMs > 0)
    drain(core, listener, drainMs);
  logInfo({"shutdown"},
          "shutting down: " + std::to_string(core.liveSessions()) +
              " live sessions");
  core.stop();
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "keygen")
    return keygen(argc, argv);
  raiseOpenFileLimit();
  std::string listenUrl;
  ServerOptions options;
  bool insecure = false;
  std::string isolation = "none";
  int warmWorkers = -1, maxWorkers = -1;
  GpuSharingMode gpuSharingMode = GpuSharingMode::Auto;
  int workerChannel = -1; // a worker: its end of the supervisor's socket
  std::vector<std::string> args;
  std::string configError;
  if (!commandLine(argc, argv, &args, &configError))
    return usageError(configError);
  std::string metricsListen, metricsTokenFile;
  // A count argument from 1 (or 0) to 4096, else -1.
  auto count = [](const std::string &text, long least) {
    char *end = nullptr;
    long n = std::strtol(text.c_str(), &end, 10);
    return text.empty() || *end || n < least || n > 4096 ? -1 : int(n);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool hasValue = false;
    // Accept both "--opt value" and "--opt=value".
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      hasValue = true;
    }
    auto need = [&](const char *what) -> bool {
      if (hasValue)
        return true;
      if (i + 1 >= args.size())
        return false;
      value = args[++i];
      (void)what;
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--config") {
      need("FILE"); // read before this loop (commandLine)
    } else if (arg == "--on-key-removed") {
      if (!need("keep|end") || (value != "keep" && value != "end"))
        return usageError("--on-key-removed must be keep or end");
      options.endSessionsOfRemovedKeys = value == "end";
    } else if (arg == "--listen") {
      if (!need("URL"))
        return usageError("--listen needs a URL (tcp://HOST:PORT or "
                          "shm://NAME)");
      listenUrl = value;
    } else if (arg == "--manifest") {
      if (!need("PATH"))
        return usageError("--manifest needs a path");
      options.manifests.push_back(value);
    } else if (arg == "--test-device") {
      if (hasValue)
        return usageError("--test-device takes no value");
      options.testDevice = true;
    } else if (arg == "--auth-key-file") {
      if (!need("FILE") || value.empty())
        return usageError("--auth-key-file needs a file name (rc-server "
                          "keygen FILE makes one)");
      options.authKeyFile = value;
    } else if (arg == "--insecure") {
      if (hasValue)
        return usageError("--insecure takes no value");
      insecure = true;
    } else if (arg == "--insecure-transport") {
      if (hasValue)
        return usageError("--insecure-transport takes no value");
      setInsecureTransport(true);
    } else if (arg == "--auth-token") {
      return usageError(
          "--auth-token was removed: a secret on the command line is visible "
          "to every local user (ps) and the token crossed the network in the "
          "clear. Make a key file with 'rc-server keygen FILE', start with "
          "--auth-key-file FILE and give clients a copy (RC_AUTH_KEY_FILE)");
    } else if (arg == "--log-level") {
      LogLevel level;
      if (!need("LEVEL") || !parseLogLevel(value, &level))
        return usageError("--log-level must be quiet, info or debug");
      setLogLevel(level);
    } else if (arg == "--log-format") {
      LogFormat format;
      if (!need("FORMAT") || !parseLogFormat(value, &format))
        return usageError("--log-format must be text or json");
      setLogFormat(format);
    } else if (arg == "--devices" || arg == "--device") {
      if (!need("LIST") || !parseOrdinals(value, &options.devices))
        return usageError(arg + " needs device ordinals like 0 or 0,1, got '" +
                          value + "'");
    } else if (arg == "--test-devices") {
      char *end = nullptr;
      long n = need("N") ? std::strtol(value.c_str(), &end, 10) : 0;
      if (value.empty() || *end || n < 1 || n > 16)
        return usageError("--test-devices needs a count from 1 to 16");
      options.testDevices = int(n);
    } else if (arg == "--metrics") {
      if (!need("FILE") || value.empty())
        return usageError("--metrics needs a file name");
      options.metricsFile = value;
    } else if (arg == "--metrics-listen") {
      if (!need("ADDR:PORT"))
        return usageError("--metrics-listen needs ADDR:PORT");
      metricsListen = value;
    } else if (arg == "--metrics-token-file") {
      if (!need("FILE") || value.empty())
        return usageError("--metrics-token-file needs a file name");
      metricsTokenFile = value;
    } else if (arg == "--cache" || arg == "--cache-disk") {
      uint64_t &bytes =
          arg == "--cache" ? options.cacheBytes : options.cacheDiskBytes;
      if (!need("SIZE") || !parseSize(value, &bytes) || bytes < (4u << 20))
        return usageError(arg + " needs a size of at least 4MiB, like 8GiB "
                                "(bytes, or a count with KiB, MiB, GiB or "
                                "TiB)");
    } else if (arg == "--cache-dir") {
      if (!need("DIR") || value.empty())
        return usageError("--cache-dir needs a directory");
      options.cacheDir = value;
    } else if (arg == "--quotas") {
      if (!need("FILE") || value.empty())
        return usageError("--quotas needs a file name");
      options.quotasFile = value;
    } else if (arg == "--isolation") {
      if (!need("MODE") || (value != "none" && value != "process"))
        return usageError("--isolation must be none or process");
      isolation = value;
    } else if (arg == "--gpu-sharing") {
      if (!need("MODE") || !parseGpuSharingMode(value, &gpuSharingMode))
        return usageError("--gpu-sharing must be auto, mps or timeslice");
    } else if (arg == "--warm-workers") {
      if (!need("N") || (warmWorkers = count(value, 0)) < 0)
        return usageError("--warm-workers needs a count from 0 to 4096");
    } else if (arg == "--max-workers") {
      if (!need("N") || (maxWorkers = count(value, 1)) < 0)
        return usageError("--max-workers needs a count from 1 to 4096");
    } else if (arg == "--worker-budgets") {
      // Internal: the supervisor's budget table, FD:ROW (isolation/).
      size_t colon = value.find(':');
      if (!need("FD:ROW") || colon == std::string::npos ||
          (options.budgetTableFd = count(value.substr(0, colon), 0)) < 0 ||
          (options.budgetHolder = count(value.substr(colon + 1), 0)) < 0)
        return usageError("--worker-budgets is rc-server's own (--isolation "
                          "process starts workers with it)");
    } else if (arg == "--worker-channel") {
      // Internal: how the supervisor starts its workers (isolation/).
      if (!need("FD") || (workerChannel = count(value, 0)) < 0)
        return usageError("--worker-channel is rc-server's own (--isolation "
                          "process starts workers with it)");
    } else {
      return usageError("unknown argument '" + args[i] + "'");
    }
  }
  if (listenUrl.empty())
    return usageError("--listen URL is required");
  if (listenUrl.rfind("tcp://", 0) != 0 && listenUrl.rfind("shm://", 0) != 0)
    return usageError("--listen URL must start with tcp:// or shm://, got '" +
                      listenUrl + "'");
  if (insecure && !options.authKeyFile.empty())
    return usageError("--insecure and --auth-key-file contradict each other: "
                      "drop --insecure to require keys");
  std::string refusal =
      openListenRefusal(listenUrl, !options.authKeyFile.empty(), insecure);
  if (!refusal.empty()) {
    std::fprintf(stderr, "rc-server: %s\n", refusal.c_str());
    return 2;
  }
  if (!options.quotasFile.empty() && options.authKeyFile.empty())
    return usageError("--quotas needs --auth-key-file: a tenant is the id of "
                      "the key its clients hold");
  const bool supervisor = isolation == "process" && workerChannel < 0;
  if ((!options.cacheDir.empty() || options.cacheDiskBytes) &&
      !options.cacheBytes)
    return usageError("--cache-dir and --cache-disk need --cache SIZE");
  if (!options.cacheDir.empty() && !options.cacheDiskBytes)
    options.cacheDiskBytes = 4 * options.cacheBytes;
  if (isolation == "process" && options.cacheBytes)
    return usageError("--cache is not served with --isolation process yet: "
                      "each worker process would hold a cache of its own");
  std::string metricsHost, metricsToken;
  int metricsPort = 0;
  if (!metricsListen.empty()) {
    std::string why;
    if (!parseMetricsListen(metricsListen, &metricsHost, &metricsPort, &why))
      return usageError(why);
    if (!metricsTokenFile.empty() &&
        !readMetricsToken(metricsTokenFile, &metricsToken, &why))
      return usageError(why);
    why = metricsListenRefusal(metricsHost, !metricsToken.empty());
    if (!why.empty())
      return usageError(why);
  } else if (!metricsTokenFile.empty()) {
    return usageError("--metrics-token-file needs --metrics-listen");
  }
  if (isolation != "process" && (warmWorkers >= 0 || maxWorkers >= 0))
    return usageError("--warm-workers and --max-workers need --isolation "
                      "process");
  if (supervisor && warmWorkers > (maxWorkers >= 0 ? maxWorkers : 32))
    return usageError("--warm-workers must not exceed --max-workers");
  if (insecure && !reachesOnlyThisHost(listenUrl) && workerChannel < 0)
    logInfo("warning: serving " + listenUrl +
            " without authentication (--insecure): anyone who can reach it "
            "may use the GPUs and read what clients send");

  // Every RC_* variable, read once (rc/server/settings.h); a refused value
  // stops the start, naming it.
  std::string settingsError;
  if (!ServerSettings::fromEnv(&options.settings, &settingsError))
    return usageError(settingsError);
  if (!rc::transport::settingsError().empty())
    return usageError(rc::transport::settingsError());

  denyMemoryAccessByOtherProcesses(options.settings.dumpable);

  // A fixed mmap threshold keeps what sessions free going back to the
  // system: by default glibc raises its mmap and trim thresholds after the
  // first large free (a tcp endpoint's 16 MiB pools), and the arenas of
  // session threads, whose tops are then never trimmed, kept tens of MiB
  // no client used any more (30 killed tcp clients: 25 -> 78 MiB resident
  // with 24 MiB in use; with this and the trim at each session's end,
  // 25 -> 28 MiB).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  std::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa{};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // Reloading is served by one process holding every session; a supervisor
  // of --isolation process and its workers keep what they started with.
  if (isolation == "process") {
    std::signal(SIGHUP, SIG_IGN);
  } else {
    struct sigaction hup{};
    hup.sa_handler = onReload;
    sigemptyset(&hup.sa_mask);
    sigaction(SIGHUP, &hup, nullptr);
  }

  // Before any CUDA call: the server's contexts and its workers' are the
  // clients of the MPS daemon it starts here. A worker inherits its
  // supervisor's daemon.
  GpuSharing gpuSharing;
  if (workerChannel < 0) {
    GpuSharingInputs in;
    in.mode = gpuSharingMode;
    in.testDevice = options.testDevice;
    in.isolationProcess = isolation == "process";
    std::vector<rc::auth::Key> keys;
    std::string ignored; // a bad key file stops the start further on
    if (!options.authKeyFile.empty() &&
        rc::auth::loadKeyFile(options.authKeyFile, &keys, &ignored))
      in.tenants = int(keys.size());
    in.mpsControl = findOnPath("nvidia-cuda-mps-control");
    in.gpuPresent = nvidiaGpuPresent();
    if (const char *dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY"))
      in.operatorPipeDir = dir;
    GpuSharingChoice choice;
    std::string error;
    if (!chooseGpuSharing(in, &choice, &error))
      return usageError(error);
    if (!gpuSharing.start(choice, gpuSharingMode, in.mpsControl, &error)) {
      logError("start-up failed: " + error);
      return 1;
    }
  }

  if (supervisor) {
    SupervisorOptions sup;
    sup.listenUrl = listenUrl;
    sup.authKeyFile = options.authKeyFile;
    sup.quotasFile = options.quotasFile;
    sup.metricsFile = options.metricsFile;
    sup.metricsHost = metricsHost;
    sup.metricsPort = metricsPort;
    sup.metricsToken = metricsToken;
    sup.workerCommand.assign(argv, argv + argc);
    sup.warmWorkers = warmWorkers >= 0 ? warmWorkers : 1;
    sup.maxWorkers = maxWorkers >= 0 ? maxWorkers : 32;
    sup.limits = options.settings.limits;
    sup.drainMs = options.settings.drainMs;
    sup.shareMpsServer = gpuSharing.sharedThroughMps();
    return runSupervisor(sup, gSignals);
  }
  if (workerChannel >= 0) {
    setLogName("rc-server worker " + std::to_string(getpid()));
    options.reservedSession = true;
  } else {
    options.contextAhead = true;
  }
  ServerCore core;
  std::string error;
  if (!core.start(options, &error)) {
    logError({"startup_failed"}, "start-up failed: " + error);
    return 1;
  }
  if (workerChannel >= 0)
    return runWorker(
        core,
        WorkerOptions{listenUrl, workerChannel, options.settings.limits,
                      options.settings.drainMs, !options.metricsFile.empty(),
                      !metricsHost.empty()},
        gSignals);
  std::unique_ptr<MetricsHttpServer> metricsEndpoint;
  if (!metricsHost.empty()) {
    metricsEndpoint = std::make_unique<MetricsHttpServer>(
        [&core] { return serverExposition(core); }, metricsToken);
    if (!metricsEndpoint->start(metricsHost, metricsPort, &error)) {
      logError({"startup_failed"}, "start-up failed: " + error);
      return 1;
    }
    logInfo({"metrics_listening"},
            "metrics: GET http://" + metricsEndpoint->address() + "/metrics" +
                (metricsToken.empty() ? "" : " (bearer token required)"));
  }
  int rc = serveForever(core, listenUrl, options.settings.limits,
                        options.settings.drainMs);
  metricsEndpoint.reset(); // before the core it reads
  if (rc == 3 && !gSignals.stop) {
    // A sticky CUDA error poisons every context of this process; a fresh
    // process (same arguments) serves new clients again, with an MPS daemon
    // of its own: this one's server may wait for its faulted clients.
    gpuSharing.stop();
    execv("/proc/self/exe", argv);
    logError({"restart_failed"},
             std::string("cannot restart: ") + std::strerror(errno));
    return 1;
  }
  return rc;
}
