// Kernels and their launches: launches of the manifests' kernels, whose
// pointer arguments are checked by the manifest's layout; kernel
// attributes; driver-API modules the build never saw (docs/driver-api.md)
// and launches of their kernels; and the questions about kernels and
// textures only the driver answers (docs/runtime-api.md, "Asked of the
// server").
#ifndef RC_SERVER_KERNEL_COMMANDS_H
#define RC_SERVER_KERNEL_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/reply_writer.h"
#include "protocol_generated.h"
#include "rc/server/session_symbols.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rc::server {

class KernelCommands {
public:
  KernelCommands(const SessionSymbols &names, DeviceBinding &devices,
                 AllocationTable &memory, ReplyWriter &reply)
      : names_(names), devices_(devices), memory_(memory), reply_(reply) {}
  // Gives the session's modules back to the backend's shared copies.
  void releaseModules();

  // A Launch, checked (kernel, configuration, arguments, pointers) and
  // performed; `what` names it in errors.
  OpStatus launch(const wire::Launch &c, std::string *what);
  // While set, a checked launch goes to `sink` instead of the device (a
  // graph's node being validated); null again ends that.
  using LaunchSink = std::function<OpStatus(
      const KernelInfo &, const LaunchConfig &, const uint8_t *)>;
  void divertLaunches(LaunchSink sink) { launchSink_ = std::move(sink); }

  OpStatus handle(const wire::Launch &c, CommandAnswer &a);
  OpStatus handle(const wire::FuncSetAttribute &c, CommandAnswer &a);
  // Driver-API modules (kernel_commands.cpp).
  OpStatus handle(const wire::ModuleLoad &c, CommandAnswer &a);
  OpStatus handle(const wire::ModuleUnload &c, CommandAnswer &a);
  OpStatus handle(const wire::ModuleFunction &c, CommandAnswer &a);
  OpStatus handle(const wire::FunctionAttributes &c, CommandAnswer &a);
  OpStatus handle(const wire::LaunchFunction &c, CommandAnswer &a);
  // TextureLinearWidth and ClusterOccupancy: questions for the driver.
  OpStatus driverQuery(const wire::CommandEntry &entry, CommandAnswer &a);

private:
  // The session's kernel `id`, or null with *why.
  const KernelInfo *sessionKernel(uint64_t id, std::string *why) const;
  // The kernel a driver-API module gave function handle `function`, or
  // null with *why.
  const KernelInfo *moduleKernel(uint64_t function, std::string *why) const;
  OpStatus stageArgs(const flatbuffers::Vector<uint8_t> *args,
                     uint32_t argsSize);
  OpStatus launchConfig(const flatbuffers::Vector<uint32_t> *grid,
                        const flatbuffers::Vector<uint32_t> *block,
                        uint32_t sharedMem, uint64_t stream, LaunchConfig *out);

  const SessionSymbols &names_; // what the client's IDs mean
  DeviceBinding &devices_;
  AllocationTable &memory_;
  ReplyWriter &reply_;
  // Driver-API modules by client ID (the backend's shared copy, released
  // with the session), and their kernels by the client's function ID.
  std::map<uint64_t, NativeHandle> modules_;
  struct ModuleKernel {
    uint64_t module = 0;
    KernelInfo kernel;
  };
  std::map<uint64_t, ModuleKernel> moduleKernels_;
  std::vector<uint8_t> argBuffer_; // 16-byte aligned copy of launch args
  LaunchSink launchSink_;
};

} // namespace rc::server

#endif
