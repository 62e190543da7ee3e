#include "gpu_sharing/gpu_sharing.h"
#include "rc/server/log.h"

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

namespace rc::server {

bool parseGpuSharingMode(const std::string &text, GpuSharingMode *mode) {
  if (text == "auto")
    *mode = GpuSharingMode::Auto;
  else if (text == "mps")
    *mode = GpuSharingMode::Mps;
  else if (text == "timeslice")
    *mode = GpuSharingMode::Timeslice;
  else
    return false;
  return true;
}

bool nvidiaGpuPresent() { return access("/dev/nvidiactl", F_OK) == 0; }

int visibleGpuCount() {
  if (const char *visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string list = visible;
    if (list.empty())
      return 0;
    return int(std::count(list.begin(), list.end(), ',')) + 1;
  }
  int n = 0;
  while (access(("/dev/nvidia" + std::to_string(n)).c_str(), F_OK) == 0)
    ++n;
  return n;
}

std::vector<std::pair<std::string, std::string>>
mpsLimitsEnvironment(const TenantQuota &quota, int gpus) {
  std::vector<std::pair<std::string, std::string>> env;
  if (quota.smPercent > 0)
    env.emplace_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                     std::to_string(quota.smPercent));
  if (quota.deviceBytes != UINT64_MAX && gpus > 0) {
    // In MiB, rounded up: MPS takes M and G units; below 1 MiB it would
    // refuse every allocation rc-server's budget still allows.
    const uint64_t mib = (quota.deviceBytes + (1 << 20) - 1) >> 20;
    std::string limits;
    for (int gpu = 0; gpu < gpus; ++gpu)
      limits += (gpu ? "," : "") + std::to_string(gpu) + "=" +
                std::to_string(mib) + "M";
    env.emplace_back("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", limits);
  }
  return env;
}

bool chooseGpuSharing(const GpuSharingInputs &in, GpuSharingChoice *choice,
                      std::string *error) {
  using Kind = GpuSharingChoice::Kind;
  const bool forced = in.mode == GpuSharingMode::Mps;
  auto timeslice = [&](const std::string &why) {
    if (forced) {
      *error = "--gpu-sharing mps: " + why;
      return false;
    }
    *choice = {Kind::Timeslice, why};
    return true;
  };
  if (in.mode == GpuSharingMode::Timeslice)
    return timeslice("--gpu-sharing timeslice");
  if (in.testDevice)
    return timeslice("--test-device serves no GPU");
  if (!in.gpuPresent)
    return timeslice("no NVIDIA GPU here (no /dev/nvidiactl)");
  if (!in.operatorPipeDir.empty()) {
    *choice = {Kind::OperatorDaemon, ""};
    return true;
  }
  if (in.mpsControl.empty())
    return timeslice("nvidia-cuda-mps-control is not on PATH");
  // A fatal fault of one MPS client ends the work of every client of its
  // MPS server on that GPU (docs/design/gpu-sharing.md): workers of
  // different tenants share one only when the operator says so.
  if (!forced && in.isolationProcess && in.tenants > 1)
    return timeslice(std::to_string(in.tenants) +
                     " tenants' workers would share one MPS server, where a "
                     "fault in one session ends the others' (--gpu-sharing "
                     "mps shares anyway)");
  *choice = {Kind::OwnDaemon, ""};
  return true;
}

bool GpuSharing::start(const GpuSharingChoice &choice, GpuSharingMode mode,
                       const std::string &mpsControl, std::string *error) {
  using Kind = GpuSharingChoice::Kind;
  if (choice.kind == Kind::Timeslice) {
    logInfo("MPS not available: " + choice.why + "; sessions time-slice");
    return true;
  }
  if (choice.kind == Kind::OperatorDaemon) {
    mps_ = true;
    logInfo(std::string("sessions share the GPU through MPS: the daemon of "
                        "CUDA_MPS_PIPE_DIRECTORY=") +
            std::getenv("CUDA_MPS_PIPE_DIRECTORY") +
            " (the operator's; rc-server does not supervise it)");
    return true;
  }
  MpsDaemonOptions options;
  options.control = mpsControl;
  if (const char *tmp = std::getenv("TMPDIR"); tmp && *tmp)
    options.parentDir = tmp;
  auto daemon = std::make_unique<MpsDaemon>(options);
  std::string why;
  if (!daemon->start(&why)) {
    if (mode == GpuSharingMode::Mps) {
      *error = "--gpu-sharing mps: " + why;
      return false;
    }
    logInfo("MPS not available: " + why + "; sessions time-slice");
    return true;
  }
  // Before any CUDA call of this process and any worker it starts: CUDA
  // reads these at cuInit.
  for (const auto &[name, value] : daemon->clientEnvironment())
    setenv(name.c_str(), value.c_str(), 1);
  logInfo("sessions share the GPU through MPS: rc-server's own MPS control "
          "daemon (" +
          mpsControl + ", pipe and logs in " + daemon->directory() + ")");
  daemon_ = std::move(daemon);
  mps_ = true;
  return true;
}

void GpuSharing::stop() {
  if (!daemon_)
    return;
  daemon_->stop();
  daemon_.reset();
  for (const char *name : {"CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY"})
    unsetenv(name);
}

} // namespace rc::server
