// Wire commands of the driver-surface extension (FuncSetAttribute, launch
// flags, VMM, driver-API modules) for the server tests, in the style of
// server_test_util.h.
#ifndef RC_SERVER_TEST_EXT_COMMANDS_H
#define RC_SERVER_TEST_EXT_COMMANDS_H

#include "server_test_util.h"

namespace rc::server::test {
namespace ext {

namespace fb = flatbuffers;

template <class T>
Cmd entry(std::function<fb::Offset<T>(fb::FlatBufferBuilder &)> f) {
  return [f](fb::FlatBufferBuilder &fbb) {
    auto body = f(fbb);
    return wire::CreateCommandEntry(fbb, wire::CommandTraits<T>::enum_value,
                                    body.Union());
  };
}
inline Cmd cSetAttr(uint64_t kernel, int attr, int value) {
  return entry<wire::FuncSetAttribute>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateFuncSetAttribute(f, kernel, attr, value);
  });
}
inline Cmd cLaunchEx(uint64_t kernel, const Bytes &args, bool coop, bool pdl,
                     std::vector<uint32_t> g = {2, 1, 1},
                     std::vector<uint32_t> b = {64, 1, 1}, uint32_t shmem = 0) {
  return entry<wire::Launch>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateLaunchDirect(f, kernel, &g, &b, shmem, 0, &args, coop,
                                    pdl);
  });
}
inline Cmd cReserve(uint64_t size, uint64_t alignment = 0) {
  return entry<wire::MemAddressReserve>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemAddressReserve(f, size, alignment);
  });
}
inline Cmd cAddrFree(uint64_t a, uint64_t size) {
  return entry<wire::MemAddressFree>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemAddressFree(f, a, size);
  });
}
inline Cmd cCreate(uint64_t h, uint64_t size) {
  return entry<wire::MemCreate>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemCreate(f, h, size);
  });
}
inline Cmd cRelease(uint64_t h) {
  return entry<wire::MemRelease>(
      [=](fb::FlatBufferBuilder &f) { return wire::CreateMemRelease(f, h); });
}
inline Cmd cMap(uint64_t a, uint64_t size, uint64_t off, uint64_t h) {
  return entry<wire::MemMap>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemMap(f, a, size, off, h);
  });
}
inline Cmd cUnmap(uint64_t a, uint64_t size) {
  return entry<wire::MemUnmap>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemUnmap(f, a, size);
  });
}
inline Cmd cAccess(uint64_t a, uint64_t size) {
  return entry<wire::MemSetAccess>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateMemSetAccess(f, a, size);
  });
}

// Driver-API modules: an image (PTX text gets its NUL here).
inline Cmd cModuleLoad(uint64_t id, const Bytes &image) {
  return entry<wire::ModuleLoad>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateModuleLoadDirect(f, id, &image);
  });
}
inline Cmd cModuleLoad(uint64_t id, const std::string &ptx) {
  Bytes bytes(ptx.begin(), ptx.end());
  bytes.push_back(0);
  return cModuleLoad(id, bytes);
}
inline Cmd cModuleUnload(uint64_t id) {
  return entry<wire::ModuleUnload>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateModuleUnload(f, id);
  });
}
inline Cmd cFunction(uint64_t module, const char *name, uint64_t function) {
  return entry<wire::ModuleFunction>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateModuleFunctionDirect(f, module, name, function);
  });
}
inline Cmd cFunctionAttributes(uint64_t function) {
  return entry<wire::FunctionAttributes>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateFunctionAttributes(f, function);
  });
}
inline Cmd cLaunchFunction(uint64_t function, const Bytes &args,
                           std::vector<uint32_t> block = {32, 1, 1},
                           std::vector<uint32_t> grid = {2, 1, 1},
                           uint64_t stream = 0) {
  return entry<wire::LaunchFunction>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateLaunchFunctionDirect(f, function, &grid, &block, 0,
                                            stream, &args);
  });
}

} // namespace ext
} // namespace rc::server::test

#endif
