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
  OpStatus st = bind(current_);
  if (!st.ok())
    return st;
  Answer a;
  a.what = what;
  a.result.index = index;
  st = dispatch(entry, a);
  if (st.ok() && a.given)
    results.push_back(std::move(a.result));
  return st;
}

// openMessage (rc/wire_message.h) let no entry through without the table
// its type names.
OpStatus Executor::dispatch(const wire::CommandEntry &entry, Answer &a) {
  using wire::Command;
  switch (entry.cmd_type()) {
  case Command::NONE:
    break; // commandInfo() refused it
  case Command::Malloc:
    return handle(*entry.cmd_as_Malloc(), a);
  case Command::Free:
    return handle(*entry.cmd_as_Free(), a);
  case Command::MemcpyH2D:
    return handle(*entry.cmd_as_MemcpyH2D(), a);
  case Command::MemcpyD2H:
    return handle(*entry.cmd_as_MemcpyD2H(), a);
  case Command::MemcpyD2D:
    return handle(*entry.cmd_as_MemcpyD2D(), a);
  case Command::Memset:
    return handle(*entry.cmd_as_Memset(), a);
  case Command::Launch:
    return handle(*entry.cmd_as_Launch(), a);
  case Command::StreamCreate:
    return handle(*entry.cmd_as_StreamCreate(), a);
  case Command::StreamDestroy:
    return handle(*entry.cmd_as_StreamDestroy(), a);
  case Command::StreamSynchronize:
    return handle(*entry.cmd_as_StreamSynchronize(), a);
  case Command::StreamQuery:
    return handle(*entry.cmd_as_StreamQuery(), a);
  case Command::DeviceSynchronize:
    return handle(*entry.cmd_as_DeviceSynchronize(), a);
  case Command::EventCreate:
    return handle(*entry.cmd_as_EventCreate(), a);
  case Command::EventDestroy:
    return handle(*entry.cmd_as_EventDestroy(), a);
  case Command::EventRecord:
    return handle(*entry.cmd_as_EventRecord(), a);
  case Command::EventSynchronize:
    return handle(*entry.cmd_as_EventSynchronize(), a);
  case Command::EventQuery:
    return handle(*entry.cmd_as_EventQuery(), a);
  case Command::EventElapsedTime:
    return handle(*entry.cmd_as_EventElapsedTime(), a);
  case Command::StreamWaitEvent:
    return handle(*entry.cmd_as_StreamWaitEvent(), a);
  case Command::SymbolWrite:
    return handle(*entry.cmd_as_SymbolWrite(), a);
  case Command::SymbolRead:
    return handle(*entry.cmd_as_SymbolRead(), a);
  case Command::SymbolAddress:
    return handle(*entry.cmd_as_SymbolAddress(), a);
  case Command::SetDevice:
    return handle(*entry.cmd_as_SetDevice(), a);
  case Command::Goodbye:
    return handle(*entry.cmd_as_Goodbye(), a);
  case Command::FuncSetAttribute:
    return handle(*entry.cmd_as_FuncSetAttribute(), a);
  case Command::MemAddressReserve:
    return handle(*entry.cmd_as_MemAddressReserve(), a);
  case Command::MemAddressFree:
    return handle(*entry.cmd_as_MemAddressFree(), a);
  case Command::MemCreate:
    return handle(*entry.cmd_as_MemCreate(), a);
  case Command::MemRelease:
    return handle(*entry.cmd_as_MemRelease(), a);
  case Command::MemMap:
    return handle(*entry.cmd_as_MemMap(), a);
  case Command::MemUnmap:
    return handle(*entry.cmd_as_MemUnmap(), a);
  case Command::MemSetAccess:
    return handle(*entry.cmd_as_MemSetAccess(), a);
  case Command::GraphInstantiate:
    return handle(*entry.cmd_as_GraphInstantiate(), a);
  case Command::GraphExecUpdate:
    return handle(*entry.cmd_as_GraphExecUpdate(), a);
  case Command::GraphLaunch:
    return handle(*entry.cmd_as_GraphLaunch(), a);
  case Command::GraphExecDestroy:
    return handle(*entry.cmd_as_GraphExecDestroy(), a);
  case Command::CublasCreate:
    return handle(*entry.cmd_as_CublasCreate(), a);
  case Command::CublasDestroy:
    return handle(*entry.cmd_as_CublasDestroy(), a);
  case Command::CublasSetWorkspace:
    return handle(*entry.cmd_as_CublasSetWorkspace(), a);
  case Command::CublasGemm:
    return handle(*entry.cmd_as_CublasGemm(), a);
  case Command::CublasTrsmBatched:
    return handle(*entry.cmd_as_CublasTrsmBatched(), a);
  case Command::PeerAccess:
    return handle(*entry.cmd_as_PeerAccess(), a);
  case Command::MemcpyH2DRing:
    return handle(*entry.cmd_as_MemcpyH2DRing(), a);
  case Command::MemcpyH2DCached:
    return handle(*entry.cmd_as_MemcpyH2DCached(), a);
  case Command::CacheInsert:
    return handle(*entry.cmd_as_CacheInsert(), a);
  case Command::CacheControl:
    return handle(*entry.cmd_as_CacheControl(), a);
  case Command::FunctionAttributes:
    return handle(*entry.cmd_as_FunctionAttributes(), a);
  case Command::HostShare:
    return handle(*entry.cmd_as_HostShare(), a);
  case Command::HostUnshare:
    return handle(*entry.cmd_as_HostUnshare(), a);
  case Command::ProfilerControl:
    return handle(*entry.cmd_as_ProfilerControl(), a);
  case Command::DeviceLimit:
    return handle(*entry.cmd_as_DeviceLimit(), a);
  case Command::ArrayCreate:
    return handle(*entry.cmd_as_ArrayCreate(), a);
  case Command::ArrayDestroy:
    return handle(*entry.cmd_as_ArrayDestroy(), a);
  case Command::ArrayCopy:
    return handle(*entry.cmd_as_ArrayCopy(), a);
  case Command::TextureCreate:
    return handle(*entry.cmd_as_TextureCreate(), a);
  case Command::TextureDestroy:
    return handle(*entry.cmd_as_TextureDestroy(), a);
  case Command::StreamAttribute:
    return handle(*entry.cmd_as_StreamAttribute(), a);
  case Command::ResetPersistingL2:
    return handle(*entry.cmd_as_ResetPersistingL2(), a);
  case Command::CublasLuBatched:
    return handle(*entry.cmd_as_CublasLuBatched(), a);
  case Command::ModuleLoad:
    return handle(*entry.cmd_as_ModuleLoad(), a);
  case Command::ModuleUnload:
    return handle(*entry.cmd_as_ModuleUnload(), a);
  case Command::ModuleFunction:
    return handle(*entry.cmd_as_ModuleFunction(), a);
  case Command::LaunchFunction:
    return handle(*entry.cmd_as_LaunchFunction(), a);
  case Command::LibCall:
    return handle(*entry.cmd_as_LibCall(), a);
  case Command::TextureLinearWidth:
  case Command::ClusterOccupancy:
    return driverQuery(entry, a);
  }
  return OpStatus::fail(kErrInvalidValue,
                        "empty or unknown command type " +
                            std::to_string(int(entry.cmd_type())));
}

} // namespace rc::server
