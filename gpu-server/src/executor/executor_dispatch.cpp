// execute(): one command to its handler. The switch names every command of
// protocol.fbs and has no default (-Werror=switch): a command added to the
// schema does not build until it has a handler here and a row in the
// command table (rc/command_table.h), which also gave its name.
#include "executor/executor.h"

#include "rc/command_table.h"
#include "rc/server/errors.h"

namespace rc::server {

OpStatus Executor::execute(const wire::CommandEntry &entry, uint32_t index,
                           std::vector<ResultData> &results,
                           std::string *what) {
  const wire::CommandInfo *info = wire::commandInfo(entry.cmd_type());
  if (!info) {
    *what = "command";
    return OpStatus::fail(kErrInvalidValue,
                          "empty or unknown command type " +
                              std::to_string(int(entry.cmd_type())));
  }
  *what = info->api;
  // Commands that name no stream, event or memory run on the current device.
  OpStatus st = devices_.bind(devices_.current());
  if (!st.ok())
    return st;
  CommandAnswer a;
  a.what = what;
  a.result.index = index;
  st = dispatch(entry, a);
  if (st.ok() && a.given)
    results.push_back(std::move(a.result));
  return st;
}

// openMessage (rc/wire_message.h) let no entry through without the table
// its type names.
OpStatus Executor::dispatch(const wire::CommandEntry &entry, CommandAnswer &a) {
  using wire::Command;
  switch (entry.cmd_type()) {
  case Command::NONE:
    break; // commandInfo() refused it
  case Command::Malloc:
    return memoryCommands_.handle(*entry.cmd_as_Malloc(), a);
  case Command::Free:
    return memoryCommands_.handle(*entry.cmd_as_Free(), a);
  case Command::MemcpyH2D:
    return memoryCommands_.handle(*entry.cmd_as_MemcpyH2D(), a);
  case Command::MemcpyD2H:
    return memoryCommands_.handle(*entry.cmd_as_MemcpyD2H(), a);
  case Command::MemcpyD2D:
    return memoryCommands_.handle(*entry.cmd_as_MemcpyD2D(), a);
  case Command::Memset:
    return memoryCommands_.handle(*entry.cmd_as_Memset(), a);
  case Command::Launch:
    return kernels_.handle(*entry.cmd_as_Launch(), a);
  case Command::StreamCreate:
    return streams_.handle(*entry.cmd_as_StreamCreate(), a);
  case Command::StreamDestroy:
    return streams_.handle(*entry.cmd_as_StreamDestroy(), a);
  case Command::StreamSynchronize:
    return streams_.handle(*entry.cmd_as_StreamSynchronize(), a);
  case Command::StreamQuery:
    return streams_.handle(*entry.cmd_as_StreamQuery(), a);
  case Command::DeviceSynchronize:
    return streams_.handle(*entry.cmd_as_DeviceSynchronize(), a);
  case Command::EventCreate:
    return streams_.handle(*entry.cmd_as_EventCreate(), a);
  case Command::EventDestroy:
    return streams_.handle(*entry.cmd_as_EventDestroy(), a);
  case Command::EventRecord:
    return streams_.handle(*entry.cmd_as_EventRecord(), a);
  case Command::EventSynchronize:
    return streams_.handle(*entry.cmd_as_EventSynchronize(), a);
  case Command::EventQuery:
    return streams_.handle(*entry.cmd_as_EventQuery(), a);
  case Command::EventElapsedTime:
    return streams_.handle(*entry.cmd_as_EventElapsedTime(), a);
  case Command::StreamWaitEvent:
    return streams_.handle(*entry.cmd_as_StreamWaitEvent(), a);
  case Command::SymbolWrite:
    return memoryCommands_.handle(*entry.cmd_as_SymbolWrite(), a);
  case Command::SymbolRead:
    return memoryCommands_.handle(*entry.cmd_as_SymbolRead(), a);
  case Command::SymbolAddress:
    return memoryCommands_.handle(*entry.cmd_as_SymbolAddress(), a);
  case Command::SetDevice:
    return streams_.handle(*entry.cmd_as_SetDevice(), a);
  case Command::Goodbye:
    return goodbye();
  case Command::FuncSetAttribute:
    return kernels_.handle(*entry.cmd_as_FuncSetAttribute(), a);
  case Command::MemAddressReserve:
    return vmm_.handle(*entry.cmd_as_MemAddressReserve(), a);
  case Command::MemAddressFree:
    return vmm_.handle(*entry.cmd_as_MemAddressFree(), a);
  case Command::MemCreate:
    return vmm_.handle(*entry.cmd_as_MemCreate(), a);
  case Command::MemRelease:
    return vmm_.handle(*entry.cmd_as_MemRelease(), a);
  case Command::MemMap:
    return vmm_.handle(*entry.cmd_as_MemMap(), a);
  case Command::MemUnmap:
    return vmm_.handle(*entry.cmd_as_MemUnmap(), a);
  case Command::MemSetAccess:
    return vmm_.handle(*entry.cmd_as_MemSetAccess(), a);
  case Command::GraphInstantiate:
    return graphs_.handle(*entry.cmd_as_GraphInstantiate(), a);
  case Command::GraphExecUpdate:
    return graphs_.handle(*entry.cmd_as_GraphExecUpdate(), a);
  case Command::GraphLaunch:
    return graphs_.handle(*entry.cmd_as_GraphLaunch(), a);
  case Command::GraphExecDestroy:
    return graphs_.handle(*entry.cmd_as_GraphExecDestroy(), a);
  case Command::CublasCreate:
    return blas_.handle(*entry.cmd_as_CublasCreate(), a);
  case Command::CublasDestroy:
    return blas_.handle(*entry.cmd_as_CublasDestroy(), a);
  case Command::CublasSetWorkspace:
    return blas_.handle(*entry.cmd_as_CublasSetWorkspace(), a);
  case Command::CublasGemm:
    return blas_.handle(*entry.cmd_as_CublasGemm(), a);
  case Command::CublasTrsmBatched:
    return blas_.handle(*entry.cmd_as_CublasTrsmBatched(), a);
  case Command::PeerAccess:
    return streams_.handle(*entry.cmd_as_PeerAccess(), a);
  case Command::MemcpyH2DRing:
    return host_.handle(*entry.cmd_as_MemcpyH2DRing(), a);
  case Command::MemcpyH2DCached:
    return cache_.handle(*entry.cmd_as_MemcpyH2DCached(), a);
  case Command::CacheInsert:
    return cache_.handle(*entry.cmd_as_CacheInsert(), a);
  case Command::CacheControl:
    return cache_.handle(*entry.cmd_as_CacheControl(), a);
  case Command::FunctionAttributes:
    return kernels_.handle(*entry.cmd_as_FunctionAttributes(), a);
  case Command::HostShare:
    return host_.handle(*entry.cmd_as_HostShare(), a);
  case Command::HostUnshare:
    return host_.handle(*entry.cmd_as_HostUnshare(), a);
  case Command::ProfilerControl:
    return streams_.handle(*entry.cmd_as_ProfilerControl(), a);
  case Command::DeviceLimit:
    return streams_.handle(*entry.cmd_as_DeviceLimit(), a);
  case Command::ArrayCreate:
    return textures_.handle(*entry.cmd_as_ArrayCreate(), a);
  case Command::ArrayDestroy:
    return textures_.handle(*entry.cmd_as_ArrayDestroy(), a);
  case Command::ArrayCopy:
    return textures_.handle(*entry.cmd_as_ArrayCopy(), a);
  case Command::TextureCreate:
    return textures_.handle(*entry.cmd_as_TextureCreate(), a);
  case Command::TextureDestroy:
    return textures_.handle(*entry.cmd_as_TextureDestroy(), a);
  case Command::StreamAttribute:
    return streams_.handle(*entry.cmd_as_StreamAttribute(), a);
  case Command::ResetPersistingL2:
    return streams_.handle(*entry.cmd_as_ResetPersistingL2(), a);
  case Command::CublasLuBatched:
    return blas_.handle(*entry.cmd_as_CublasLuBatched(), a);
  case Command::ModuleLoad:
    return kernels_.handle(*entry.cmd_as_ModuleLoad(), a);
  case Command::ModuleUnload:
    return kernels_.handle(*entry.cmd_as_ModuleUnload(), a);
  case Command::ModuleFunction:
    return kernels_.handle(*entry.cmd_as_ModuleFunction(), a);
  case Command::LaunchFunction:
    return kernels_.handle(*entry.cmd_as_LaunchFunction(), a);
  case Command::LibCall:
    return libraries_.handle(*entry.cmd_as_LibCall(), a);
  case Command::TextureLinearWidth:
  case Command::ClusterOccupancy:
    return kernels_.driverQuery(entry, a);
  }
  return OpStatus::fail(kErrInvalidValue,
                        "empty or unknown command type " +
                            std::to_string(int(entry.cmd_type())));
}

} // namespace rc::server
