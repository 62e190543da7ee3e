// The SIGSEGV handler of managed memory: a write to a clean mirror marks
// it dirty and retries; an access to a fenced mirror (the device may be
// using it) ends the program with a line that names what happened, then
// takes the fault's ordinary course, as CUDA's segfault does on GPUs
// without concurrent managed access; any other fault is passed on.
#include "core/managed_memory.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <ucontext.h>
#include <unistd.h>

namespace rc::rt {

namespace {

struct sigaction previousSegv; // whoever handled SIGSEGV before us

// Hands a fault that is not ours to the handler installed before ours, or
// to the default action (the fault repeats when we return, and kills).
void passOn(int sig, siginfo_t *info, void *context) {
  if (previousSegv.sa_flags & SA_SIGINFO) {
    if (previousSegv.sa_sigaction) {
      previousSegv.sa_sigaction(sig, info, context);
      return;
    }
  } else if (previousSegv.sa_handler != SIG_DFL &&
             previousSegv.sa_handler != SIG_IGN) {
    previousSegv.sa_handler(sig);
    return;
  }
  signal(SIGSEGV, SIG_DFL);
}

// A line built without allocating (async-signal-safe).
class Line {
public:
  void add(const char *s) {
    while (*s && len_ < sizeof buf_)
      buf_[len_++] = *s++;
  }
  void hex(uint64_t v) {
    char digits[16];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    add("0x");
    while (n && len_ < sizeof buf_)
      buf_[len_++] = digits[--n];
  }
  void dec(uint64_t v) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    while (n && len_ < sizeof buf_)
      buf_[len_++] = digits[--n];
  }
  void write() const {
    size_t done = 0;
    while (done < len_) {
      ssize_t n = ::write(STDERR_FILENO, buf_ + done, len_ - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return;
      done += size_t(n);
    }
  }

private:
  char buf_[640];
  size_t len_ = 0;
};

// What the faulting instruction did, where the context says it.
const char *accessOf(void *context) {
#if defined(__x86_64__)
  const auto *uc = static_cast<const ucontext_t *>(context);
  // Page-fault error code: bit 1 set for a write.
  return uc->uc_mcontext.gregs[REG_ERR] & 2 ? "wrote" : "read";
#else
  (void)context;
  return "accessed";
#endif
}

void reportFenced(const ManagedMirrors::Fault &f, uint64_t addr,
                  void *context) {
  Line line;
  line.add("remote-clang: the host ");
  line.add(accessOf(context));
  line.add(" managed memory at ");
  line.hex(addr);
  line.add(" (cudaMallocManaged, ");
  line.dec(f.requested);
  line.add(" bytes at ");
  line.hex(f.begin);
  line.add(") while the GPU may be using it; remote GPUs offer no "
           "concurrent managed access (cudaDevAttrConcurrentManagedAccess "
           "is 0): synchronize first (cudaDeviceSynchronize, "
           "cudaStreamSynchronize) or attach it to the host with "
           "cudaStreamAttachMemAsync\n");
  line.write();
}

// Set once a fenced access was reported: a handler before ours that
// returns would bring the same fault back, and then the default action
// ends it.
std::atomic<bool> reported{false};

void onSegv(int sig, siginfo_t *info, void *context) {
  int savedErrno = errno;
  uint64_t addr = uint64_t(reinterpret_cast<uintptr_t>(info->si_addr));
  ManagedMirrors::Fault f = ManagedMirrors::onFault(addr);
  errno = savedErrno;
  switch (f.action) {
  case ManagedMirrors::Fault::Retry:
    return;
  case ManagedMirrors::Fault::Fenced:
    if (reported.exchange(true)) {
      signal(SIGSEGV, SIG_DFL);
      return;
    }
    reportFenced(f, addr, context);
    passOn(sig, info, context);
    return;
  case ManagedMirrors::Fault::NotOurs:
    passOn(sig, info, context);
    return;
  }
}

} // namespace

void ManagedMirrors::installHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onSegv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previousSegv);
  });
}

} // namespace rc::rt
