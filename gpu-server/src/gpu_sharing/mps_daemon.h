// An NVIDIA MPS control daemon that rc-server starts and supervises
// (docs/design/gpu-sharing.md): CUDA contexts of processes that carry its
// clientEnvironment() are MPS clients, so their kernels run side by side
// on the GPU instead of time-slicing. The daemon runs in the foreground
// (nvidia-cuda-mps-control -f) as this process's child, with pipe and log
// directories under a private 0700 directory, so it is rc-server's alone:
// no other user's or server's MPS daemon is touched. A monitor thread
// restarts it when it dies; stop() (and the destructor) asks it to quit on
// its control pipe, waits, and kills it on a timeout.
#ifndef RC_SERVER_MPS_DAEMON_H
#define RC_SERVER_MPS_DAEMON_H

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <thread>
#include <utility>
#include <vector>

namespace rc::server {

struct MpsDaemonOptions {
  // The control program's absolute path (findMpsControl()'s).
  std::string control;
  // Where the private directory is made (its name: rc-mps.XXXXXX).
  std::string parentDir = "/tmp";
  // How long the daemon may take to open its control pipe.
  int readyTimeoutMs = 10000;
  // How long `quit` may take before the daemon is killed.
  int quitTimeoutMs = 5000;
  // After a restart, the next one waits at least this long, so a daemon
  // that dies at once does not spin.
  int restartDelayMs = 1000;
};

// The absolute path of `name` on $PATH, executable; "" when there is none.
std::string findOnPath(const std::string &name);

class MpsDaemon {
public:
  explicit MpsDaemon(MpsDaemonOptions options);
  ~MpsDaemon(); // stop()
  MpsDaemon(const MpsDaemon &) = delete;
  MpsDaemon &operator=(const MpsDaemon &) = delete;

  // Makes the private directory, starts the daemon, waits until its control
  // pipe is open and starts the monitor. False with *why (the daemon's own
  // last words included) when it cannot.
  bool start(std::string *why);
  // Quits the daemon (killed after quitTimeoutMs), stops the monitor and
  // removes the private directory. Idempotent.
  void stop();

  // What an MPS client of this daemon needs in its environment before its
  // first CUDA call: CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY.
  std::vector<std::pair<std::string, std::string>> clientEnvironment() const;
  const std::string &directory() const { return dir_; }
  // How often the monitor found it dead and started it again.
  int restarts() const;

private:
  // Forks and executes the daemon; waits until its pipe is open.
  bool launch(std::string *why);
  bool waitUntilReady(pid_t pid, std::string *why);
  // Sends `quit` on the control pipe; true once the daemon ended.
  bool quit();
  void monitor();
  std::string lastWords() const; // the tail of the daemon's own output

  const MpsDaemonOptions options_;
  std::string dir_, pipeDir_, logDir_, outputFile_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  pid_t pid_ = -1;
  bool stopping_ = false;
  int restarts_ = 0;
  std::thread monitor_;
};

} // namespace rc::server

#endif
