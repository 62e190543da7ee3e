// A decode token's clock that reads the same for both builds of llama.cpp:
// preloaded (LD_PRELOAD) into llama-bench, it stamps the return of the first
// cudaStreamSynchronize after a device-to-host cudaMemcpyAsync, which is
// where llama.cpp waits for a token's logits, and the token's first
// cudaGraphLaunch: before it the host prepares the token (llama.cpp's work,
// plus issuing calls), after it the host waits (the GPU, plus for the remote
// build the batch's trip, the replay and the reply). The nvcc build resolves
// these calls in CUDA's libcudart, the remote-clang build in librc_cudart; both
// bind them dynamically, so one shim times local and remote runs alike, and
// the remote runtime's own counters are not needed to compare them.
//
//   TOKEN_CLOCK_OUT=FILE   where the stamps go at exit, a token a line:
//                          "<end> <graph launch>" in ns (CLOCK_MONOTONIC),
//                          the launch 0 where the token launched no graph
//
// Built by bench/token-clock.sh on the GPU machine: cc -O2 -shared -fPIC.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// cudaMemcpyDeviceToHost in CUDA's enum cudaMemcpyKind; the shim needs no
// CUDA header, so the value is spelled here.
enum { kDeviceToHost = 2 };
enum { kMaxStamps = 1 << 20 };

typedef int (*MemcpyAsyncFn)(void *, const void *, size_t, int, void *);
typedef int (*StreamSyncFn)(void *);
typedef int (*GraphLaunchFn)(void *, void *);

static unsigned long long ends[kMaxStamps];
static unsigned long long launches[kMaxStamps];
static atomic_int stampCount;
static atomic_int readBackPending;
static atomic_ullong launchSinceEnd;

static unsigned long long nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *nextSymbol(const char *name) {
  void *fn = dlsym(RTLD_NEXT, name);
  if (!fn) {
    fprintf(stderr, "token_clock: %s not found after the shim: %s\n", name,
            dlerror());
    abort();
  }
  return fn;
}

int cudaMemcpyAsync(void *dst, const void *src, size_t count, int kind,
                    void *stream) {
  static MemcpyAsyncFn next;
  if (!next)
    next = (MemcpyAsyncFn)nextSymbol("cudaMemcpyAsync");
  if (kind == kDeviceToHost)
    atomic_store(&readBackPending, 1);
  return next(dst, src, count, kind, stream);
}

int cudaStreamSynchronize(void *stream) {
  static StreamSyncFn next;
  if (!next)
    next = (StreamSyncFn)nextSymbol("cudaStreamSynchronize");
  int result = next(stream);
  if (atomic_exchange(&readBackPending, 0)) {
    int i = atomic_fetch_add(&stampCount, 1);
    if (i < kMaxStamps) {
      ends[i] = nowNs();
      launches[i] = atomic_exchange(&launchSinceEnd, 0);
    }
  }
  return result;
}

int cudaGraphLaunch(void *graphExec, void *stream) {
  static GraphLaunchFn next;
  if (!next)
    next = (GraphLaunchFn)nextSymbol("cudaGraphLaunch");
  unsigned long long none = 0;
  atomic_compare_exchange_strong(&launchSinceEnd, &none, nowNs());
  return next(graphExec, stream);
}

// Processes that never waited for a read-back (a shell or `timeout` that
// inherited LD_PRELOAD) leave the file alone.
__attribute__((destructor)) static void writeStamps(void) {
  const char *path = getenv("TOKEN_CLOCK_OUT");
  if (!path || atomic_load(&stampCount) == 0)
    return;
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "token_clock: cannot write %s\n", path);
    return;
  }
  int n = atomic_load(&stampCount);
  if (n > kMaxStamps)
    n = kMaxStamps;
  for (int i = 0; i < n; ++i)
    fprintf(out, "%llu %llu\n", ends[i], launches[i]);
  fclose(out);
}
