// How rc-server's sessions share a GPU (rc-server --gpu-sharing,
// docs/design/gpu-sharing.md): through an NVIDIA MPS daemon of the
// server's own, so that kernels of different sessions (processes, under
// --isolation process) run side by side, or time-sliced, as CUDA contexts
// of different processes run without MPS.
#ifndef RC_SERVER_GPU_SHARING_H
#define RC_SERVER_GPU_SHARING_H

#include "gpu_sharing/mps_daemon.h"
#include "rc/server/tenant_quotas.h"

#include <memory>
#include <string>

namespace rc::server {

enum class GpuSharingMode { Auto, Mps, Timeslice };

// "auto", "mps", "timeslice"; false on anything else.
bool parseGpuSharingMode(const std::string &text, GpuSharingMode *mode);

// What the choice depends on: the operator's flags and the machine.
struct GpuSharingInputs {
  GpuSharingMode mode = GpuSharingMode::Auto;
  bool testDevice = false;       // --test-device: no GPU to share
  bool isolationProcess = false; // --isolation process
  // Tenants whose sessions would share one MPS server: the key ids of
  // --auth-key-file (0 without one: all clients are one tenant).
  int tenants = 0;
  std::string mpsControl;  // findOnPath("nvidia-cuda-mps-control")
  bool gpuPresent = false; // the NVIDIA driver's device files exist
  // CUDA_MPS_PIPE_DIRECTORY of rc-server's environment: an MPS daemon the
  // operator runs ("" for none).
  std::string operatorPipeDir;
};

struct GpuSharingChoice {
  enum class Kind { OwnDaemon, OperatorDaemon, Timeslice } kind;
  // Timeslice: why MPS is not used. Others: "".
  std::string why;
};

// The decision alone (no side effects): false with *error when the mode
// asks for MPS and the machine cannot give it.
bool chooseGpuSharing(const GpuSharingInputs &in, GpuSharingChoice *choice,
                      std::string *error);

// True when the NVIDIA driver's control device exists: a GPU MPS can serve.
bool nvidiaGpuPresent();

// The GPUs a CUDA process started now would see: CUDA_VISIBLE_DEVICES'
// entries, else the driver's /dev/nvidiaN files.
int visibleGpuCount();

// What MPS bounds of a tenant's quota a worker serving it starts with
// (rc/server/tenant_quotas.h): CUDA_MPS_ACTIVE_THREAD_PERCENTAGE from
// sm=PERCENT, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT from device=SIZE on each of
// `gpus` GPUs. Empty when the quota has neither.
std::vector<std::pair<std::string, std::string>>
mpsLimitsEnvironment(const TenantQuota &quota, int gpus);

// The choice carried out: the daemon started and this process's
// environment made that of its clients, so CUDA contexts it creates later,
// and those of the processes it starts, are MPS clients.
class GpuSharing {
public:
  GpuSharing() = default;
  ~GpuSharing() { stop(); }
  // Carries out `choice`; logs the line saying which mode is in effect.
  // False with *error when the daemon cannot start under --gpu-sharing mps;
  // under auto a daemon that cannot start falls back to time-slicing.
  bool start(const GpuSharingChoice &choice, GpuSharingMode mode,
             const std::string &mpsControl, std::string *error);
  // Quits the daemon, if any (before an exec or at exit).
  void stop();
  bool sharedThroughMps() const { return mps_; }

private:
  std::unique_ptr<MpsDaemon> daemon_;
  bool mps_ = false;
};

} // namespace rc::server

#endif
