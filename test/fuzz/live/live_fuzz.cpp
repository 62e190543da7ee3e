// rc_live_fuzz: a mutation fuzzer over a live connection. It starts
// `rc-server --test-device` on tcp or shm, opens sessions with a valid Hello
// and sends them, for a bounded time, messages that are generated
// (command_generator.h), mutated (mutator.h) from generated ones and from
// recorded sessions, or plain garbage; it reconnects whenever the server
// ends a session, drops connections at random, and checks every 64
// messages that the session still answers. It fails (exit 1) when the
// server dies or stops answering, keeping that session's messages as a
// recording (a reproducer for the session fuzzer). docs/fuzzing.md.
#include "command_generator.h"
#include "mutator.h"
#include "rc/server/session_recording.h"
#include "rc/transport.h"
#include "rc/wire_message.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;
using Clock = std::chrono::steady_clock;
namespace wire = rc::wire;
namespace transport = rc::transport;

struct Options {
  std::string server, transportName = "tcp", log = "rc_live_fuzz-server.log";
  std::string crashDir = ".";
  std::vector<std::string> manifests, seedDirs;
  int seconds = 60;
  uint64_t seed = 0;
};

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr,
               "rc_live_fuzz: %s\n"
               "usage: rc_live_fuzz --rc-server PATH --manifest M.rcm "
               "[--manifest ...] [--transport tcp|shm] [--seconds N]\n"
               "       [--seeds DIR ...] [--seed N] [--log FILE] "
               "[--crash-dir DIR]\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  o.seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--rc-server")
      o.server = value();
    else if (a == "--manifest")
      o.manifests.push_back(value());
    else if (a == "--transport")
      o.transportName = value();
    else if (a == "--seconds")
      o.seconds = std::atoi(value().c_str());
    else if (a == "--seeds")
      o.seedDirs.push_back(value());
    else if (a == "--seed")
      o.seed = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--log")
      o.log = value();
    else if (a == "--crash-dir")
      o.crashDir = value();
    else
      usage("unknown argument " + a);
  }
  if (o.server.empty() || o.manifests.empty())
    usage("--rc-server and --manifest are required");
  if (o.transportName != "tcp" && o.transportName != "shm")
    usage("--transport is tcp or shm");
  return o;
}

std::string readText(const std::string &path) {
  Bytes bytes;
  std::string error;
  rc::readFile(path, bytes, &error);
  return std::string(bytes.begin(), bytes.end());
}

// The rc-server child, its output in a log file.
class ServerProcess {
public:
  ServerProcess(const Options &o, const std::string &url) : log_(o.log) {
    // A small content cache: its commands and its evictions are fuzzed too.
    std::vector<std::string> args = {o.server,  "--test-device", "--listen",
                                     url,       "--log-level",   "info",
                                     "--cache", "16MiB"};
    for (const std::string &m : o.manifests)
      args.insert(args.end(), {"--manifest", m});
    // A previous run's log must not be read as this server's.
    std::remove(log_.c_str());
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlives a crashed fuzzer
      if (!std::freopen(log_.c_str(), "w", stderr))
        _exit(126);
      dup2(fileno(stderr), 1);
      // SIGTERM drains (docs/server.md, "Stopping"): briefly here, so that
      // stop() checks the drain and the stop after it within its wait.
      setenv("RC_SERVER_DRAIN_MS", "200", 1);
      std::vector<char *> argv;
      for (std::string &a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  // Whether it still runs; else *how says how it ended.
  bool alive(std::string *how) {
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, WNOHANG) != pid_)
      return pid_ > 0;
    pid_ = -1;
    *how = WIFSIGNALED(status)
               ? std::string("killed by signal ") + strsignal(WTERMSIG(status))
               : "exited with status " + std::to_string(WEXITSTATUS(status));
    return false;
  }
  // SIGTERM, then its exit status (-1: it had to be killed).
  int stop() {
    kill(pid_, SIGTERM);
    for (int i = 0; i < 1000; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }
  uint64_t rssKb() const {
    std::ifstream f("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("VmRSS:", 0) == 0)
        return std::strtoull(line.c_str() + 6, nullptr, 10);
    return 0;
  }
  std::string log() const { return readText(log_); }
  // The address the server reports once it listens ("" if it did not
  // within timeoutMs): a tcp port 0 becomes the port it got.
  std::string listeningAddress(int timeoutMs) {
    const std::string mark = "; listening on ";
    auto until = Clock::now() + std::chrono::milliseconds(timeoutMs);
    std::string how;
    while (Clock::now() < until && alive(&how)) {
      std::string text = log();
      size_t at = text.find(mark);
      // The address ends the message; the line may quote it (key=value
      // fields, docs/metrics.md "Logs").
      size_t end =
          at == std::string::npos ? at : text.find_first_of("\"\n", at);
      if (end != std::string::npos)
        return text.substr(at + mark.size(), end - at - mark.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "";
  }
  // Every thread's stack, when gdb is there: why a session stopped
  // answering.
  void dumpStacks(const std::string &path) const {
    std::string cmd = "command -v gdb >/dev/null && gdb -q -batch -p " +
                      std::to_string(pid_) + " -ex 'thread apply all bt 16' >" +
                      path + " 2>&1";
    if (pid_ > 0 && std::system(cmd.c_str()) == 0)
      std::fprintf(stderr, "rc_live_fuzz: server stacks in %s\n", path.c_str());
  }

private:
  pid_t pid_ = -1;
  std::string log_;
};

std::vector<Bytes> loadSeeds(const std::vector<std::string> &dirs) {
  std::vector<Bytes> seeds;
  for (const std::string &dir : dirs) {
    DIR *d = opendir(dir.c_str());
    if (!d)
      usage("cannot read seed directory " + dir);
    while (dirent *e = readdir(d)) {
      if (e->d_name[0] == '.')
        continue;
      std::string text = readText(dir + "/" + e->d_name);
      rc::server::forEachRecordedMessage(
          reinterpret_cast<const uint8_t *>(text.data()), text.size(),
          [&](const uint8_t *m, size_t n) {
            seeds.emplace_back(m, m + n);
            return true;
          });
    }
    closedir(d);
  }
  return seeds;
}

struct Stats {
  uint64_t messages = 0, bytes = 0, sessions = 0, replies = 0, errors = 0,
           refusedHellos = 0, dropped = 0, probes = 0;
};

class LiveFuzzer {
public:
  LiveFuzzer(const Options &o, ServerProcess &server, std::string url)
      : o_(o), server_(server), url_(std::move(url)), rng_(o.seed),
        generator_(manifests(o), rng_) {
    seeds_ = loadSeeds(o.seedDirs);
  }

  // Fuzzes until the deadline; false (with *why) when the server died or
  // stopped answering.
  bool run(std::string *why) {
    auto until = Clock::now() + std::chrono::seconds(o_.seconds);
    while (Clock::now() < until) {
      if (!conn_ && !openSession(why))
        return false;
      Bytes msg = nextMessage();
      recent_.push_back(msg);
      if (recent_.size() > 256)
        recent_.pop_front();
      ++stats_.messages;
      stats_.bytes += msg.size();
      if (conn_->send(msg.data(), msg.size()) != transport::Status::Ok)
        conn_.reset();
      drain(0);
      std::string how;
      if (!server_.alive(&how))
        return died("the server " + how, why);
      if (conn_ && stats_.messages % 64 == 0 && !probe(why))
        return false;
      if (conn_ && rng_() % 400 == 0) { // the client vanishes mid-session
        conn_.reset();
        ++stats_.dropped;
      }
    }
    return true;
  }

  // A fresh session still works: Hello, then a synchronised batch.
  bool healthy(std::string *why) {
    conn_.reset();
    return openSession(why) && probe(why);
  }

  const Stats &stats() const { return stats_; }

private:
  static std::vector<rc::LoadedManifest> manifests(const Options &o) {
    std::vector<rc::LoadedManifest> out;
    for (const std::string &path : o.manifests) {
      rc::LoadedManifest m;
      std::string error;
      if (!rc::loadManifest(path, m, &error))
        usage(error);
      out.push_back(std::move(m));
    }
    return out;
  }

  Bytes hello() {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<uint64_t> hashes;
    for (const std::string &path : o_.manifests) {
      rc::LoadedManifest m;
      std::string error;
      if (rc::loadManifest(path, m, &error))
        hashes.push_back(m.hash);
    }
    auto h = wire::CreateHelloDirect(fbb, wire::kProtocolVersion, &hashes,
                                     "rc_live_fuzz", uint32_t(getpid()),
                                     rng_() % 2 ? 1u << 20 : 0);
    wire::FinishMessageBuffer(
        fbb, wire::CreateMessage(fbb, wire::Body::Hello, h.Union()));
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
  }

  bool openSession(std::string *why) {
    auto until = Clock::now() + std::chrono::seconds(10);
    std::string error;
    while (!(conn_ = transport::connect(url_, 2000, &error))) {
      std::string how;
      if (!server_.alive(&how))
        return died("the server " + how, why);
      if (Clock::now() > until)
        return died("cannot connect for 10 s: " + error, why);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    recent_.clear();
    Bytes h = hello();
    recent_.push_back(h);
    Bytes reply;
    if (conn_->send(h.data(), h.size()) != transport::Status::Ok ||
        conn_->recv(reply, 10000) != transport::Status::Ok)
      return died("no answer to a valid Hello: " + conn_->lastError(), why);
    const wire::Message *m =
        wire::openMessage(reply.data(), reply.size(), &error);
    const wire::HelloReply *hr = m ? m->body_as_HelloReply() : nullptr;
    if (!hr || !hr->ok())
      return died("a valid Hello was refused: " +
                      (hr && hr->error() ? hr->error()->str() : error),
                  why);
    ++stats_.sessions;
    seq_ = 1;
    generator_.reset();
    return true;
  }

  Bytes nextMessage() {
    unsigned pick = unsigned(rng_() % 100);
    if (pick < 45 || seeds_.empty())
      return maybeMutated(generator_.batch(seq_++, 8), pick % 3 == 0);
    const Bytes &seed = seeds_[rng_() % seeds_.size()];
    if (pick < 50)
      return seed;
    if (pick < 95)
      return maybeMutated(seed, true);
    Bytes junk(rng_() % 256);
    for (uint8_t &b : junk)
      b = uint8_t(rng_());
    return junk;
  }

  Bytes maybeMutated(Bytes msg, bool mutated) {
    if (mutated) {
      const Bytes &other =
          seeds_.empty() ? msg : seeds_[rng_() % seeds_.size()];
      rc::fuzz::mutate(msg, other, rng_);
    }
    return msg;
  }

  // Reads replies for up to waitMs; true when one for batch `seq` came.
  bool drain(int waitMs, uint64_t seq = 0) {
    auto until = Clock::now() + std::chrono::milliseconds(waitMs);
    bool got = false;
    while (conn_) {
      Bytes reply;
      int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                         until - Clock::now())
                         .count());
      transport::Status st = conn_->recv(reply, got ? 0 : std::max(left, 0));
      if (st == transport::Status::Timeout)
        break;
      if (st != transport::Status::Ok) { // the server ended the session
        conn_.reset();
        break;
      }
      ++stats_.replies;
      const wire::Message *m =
          wire::openMessage(reply.data(), reply.size(), nullptr);
      if (const wire::BatchReply *br = m ? m->body_as_BatchReply() : nullptr) {
        generator_.learn(*br);
        if (br->errors() && br->errors()->size())
          ++stats_.errors;
        got = got || (seq && br->seq() == seq);
      }
    }
    return got;
  }

  // The session answers a synchronised batch within 20 s, or the server
  // closed it (a Goodbye among the messages ends it legitimately).
  bool probe(std::string *why) {
    ++stats_.probes;
    flatbuffers::FlatBufferBuilder fbb;
    uint64_t seq = seq_++;
    std::vector<flatbuffers::Offset<wire::CommandEntry>> cmds = {
        wire::CreateCommandEntry(fbb, wire::Command::DeviceSynchronize,
                                 wire::CreateDeviceSynchronize(fbb).Union())};
    auto b = wire::CreateBatchDirect(fbb, seq, &cmds, true);
    wire::FinishMessageBuffer(
        fbb, wire::CreateMessage(fbb, wire::Body::Batch, b.Union()));
    if (conn_->send(fbb.GetBufferPointer(), fbb.GetSize()) !=
        transport::Status::Ok) {
      conn_.reset();
      return true;
    }
    if (drain(20000, seq) || !conn_)
      return true;
    server_.dumpStacks(o_.crashDir + "/live-stall-" + std::to_string(getpid()) +
                       ".stacks");
    return died("a session stopped answering (no reply to a synchronised "
                "batch within 20 s)",
                why);
  }

  bool died(const std::string &what, std::string *why) {
    char name[64];
    std::snprintf(name, sizeof name, "/live-crash-%d.rcrec", int(getpid()));
    std::string path = o_.crashDir + name;
    if (std::FILE *f = std::fopen(path.c_str(), "wb")) {
      for (const Bytes &m : recent_) {
        uint32_t n = uint32_t(m.size());
        uint8_t len[4] = {uint8_t(n), uint8_t(n >> 8), uint8_t(n >> 16),
                          uint8_t(n >> 24)};
        std::fwrite(len, 1, 4, f);
        std::fwrite(m.data(), 1, m.size(), f);
      }
      std::fclose(f);
    }
    *why = what + "; the session's last " + std::to_string(recent_.size()) +
           " messages are in " + path + " (a session fuzzer input)";
    return false;
  }

  const Options &o_;
  ServerProcess &server_;
  std::string url_;
  std::mt19937_64 rng_;
  rc::fuzz::CommandGenerator generator_;
  std::vector<Bytes> seeds_;
  std::unique_ptr<transport::Connection> conn_;
  std::deque<Bytes> recent_;
  uint64_t seq_ = 1;
  Stats stats_;
};

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  signal(SIGPIPE, SIG_IGN);
  ServerProcess server(o,
                       o.transportName == "tcp"
                           ? "tcp://127.0.0.1:0"
                           : "shm://rc-live-fuzz-" + std::to_string(getpid()));
  std::string url = server.listeningAddress(30000);
  if (url.empty()) {
    std::printf("rc_live_fuzz: FAILED: rc-server did not start:\n%s\n",
                server.log().c_str());
    return 1;
  }
  uint64_t rssStart = 0;
  auto start = Clock::now();
  std::string why;
  LiveFuzzer fuzzer(o, server, url);
  bool ok = fuzzer.healthy(&why);
  if (ok) {
    rssStart = server.rssKb();
    ok = fuzzer.run(&why) && fuzzer.healthy(&why);
  }
  uint64_t rssEnd = server.rssKb();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  const Stats &s = fuzzer.stats();
  std::printf("rc_live_fuzz %s (seed %llu): %.0f s, %llu messages (%.1f MB), "
              "%llu sessions, %llu dropped, %llu replies (%llu with errors), "
              "%llu probes; server RSS %llu -> %llu kB\n",
              o.transportName.c_str(), (unsigned long long)o.seed, secs,
              (unsigned long long)s.messages, double(s.bytes) / 1e6,
              (unsigned long long)s.sessions, (unsigned long long)s.dropped,
              (unsigned long long)s.replies, (unsigned long long)s.errors,
              (unsigned long long)s.probes, (unsigned long long)rssStart,
              (unsigned long long)rssEnd);
  if (!ok) {
    std::printf("rc_live_fuzz: FAILED: %s\nserver log (%s):\n%s\n", why.c_str(),
                o.log.c_str(), server.log().c_str());
    return 1;
  }
  int status = server.stop();
  if (status != 0) {
    std::printf("rc_live_fuzz: FAILED: the server did not stop cleanly on "
                "SIGTERM (status %d)\nserver log:\n%s\n",
                status, server.log().c_str());
    return 1;
  }
  std::printf("rc_live_fuzz %s: server deaths 0\n", o.transportName.c_str());
  return 0;
}
