// Vendor library calls (docs/libraries.md): librc_curand and its kind hand
// each served call here with its row's tokens (rc/lib_call.h); it is
// encoded and batched, or sent in one round trip when it returns host
// bytes (an `o` or `t` parameter), or kept as a node of the graph its
// stream is capturing (docs/graphs.md, "Library calls in graphs").
#include "core/libraries.h"

#include "core/runtime.h"

#include <cstdio>
#include <cstring>

namespace rc::rt {

namespace {

void appendBytes(std::vector<uint8_t> &to, const void *p, size_t n) {
  const uint8_t *b = static_cast<const uint8_t *>(p);
  to.insert(to.end(), b, b + n);
}

template <class T> T valueOf(const RcLibArg &a) {
  T v{};
  std::memcpy(&v, a.value, sizeof v);
  return v;
}

// Whether a call may change device memory, and so managed memory, as far
// as its row tells: one that takes device memory (or NPP's stream
// context) or works on several library objects (cuSPARSE's descriptors
// hold device arrays). Making or destroying an object, or setting or
// reading one object's host-side state (a seed, a stream, an attribute)
// does not, and must not keep the host from managed memory.
bool mayChangeDeviceMemory(const std::vector<lib::ParamRule> &rules) {
  bool lifetime = false, device = false;
  int objects = 0;
  for (const lib::ParamRule &r : rules) {
    lifetime |= r.pass == lib::Pass::Create || r.pass == lib::Pass::Destroy;
    device |= r.pass == lib::Pass::Device || r.pass == lib::Pass::StreamContext;
    objects += r.pass == lib::Pass::Object;
  }
  return !lifetime && (device || objects > 1);
}

} // namespace

cudaError_t Libraries::libraryCall(const char *key, const char *params,
                                   const RcLibArg *args, int count,
                                   bool scalarsOnDevice, int *status) {
  *status = 0;
  std::vector<lib::ParamRule> rules;
  std::string why;
  if (!lib::parseParams(params, &rules, &why) || int(rules.size()) != count) {
    std::fprintf(stderr, "remote-clang: %s: bad parameter rules (%s)\n", key,
                 why.c_str());
    return cudaErrorInvalidValue;
  }
  if (scalarsOnDevice)
    lib::scalarsOnDevice(&rules);
  std::lock_guard<std::mutex> lock(rt_.mu_);
  if (cudaError_t err = rt_.ensureConnectedLocked())
    return err;

  std::vector<uint8_t> fixed, inputs;
  struct Output {
    const RcLibArg *arg;
    lib::Pass pass;
    uint64_t bytes;
  };
  std::vector<Output> outputs;
  std::vector<std::pair<const RcLibArg *, uint64_t>> created;
  uint64_t object = 0; // the first object the call names, for captures
  for (int i = 0; i < count; ++i) {
    const lib::ParamRule &r = rules[i];
    const RcLibArg &a = args[i];
    uint64_t extent = 0;
    auto paramBytes = [&](size_t k) {
      return std::pair<const uint8_t *, size_t>(
          static_cast<const uint8_t *>(args[k].value), args[k].valueBytes);
    };
    if (r.pass != lib::Pass::Value &&
        !lib::paramExtent(rules, size_t(i), a.pointeeBytes, uint64_t(1) << 40,
                          paramBytes, &extent))
      return cudaErrorInvalidValue;
    switch (r.pass) {
    case lib::Pass::Value:
      appendBytes(fixed, a.value, a.valueBytes);
      break;
    case lib::Pass::StreamContext: {
      // The struct's own bytes, its first member the wire stream.
      uint64_t sid = 0;
      if (a.valueBytes < 8)
        return cudaErrorInvalidValue;
      if (cudaError_t err = rt_.streams_.wireStreamLocked(
              valueOf<cudaStream_t>(a), false, &sid))
        return err;
      size_t at = fixed.size();
      appendBytes(fixed, a.value, a.valueBytes);
      std::memcpy(fixed.data() + at, &sid, 8);
      break;
    }
    case lib::Pass::Object:
    case lib::Pass::Destroy: {
      uint64_t id = valueOf<uint64_t>(a);
      if (!object)
        object = id;
      appendBytes(fixed, &id, 8);
      break;
    }
    case lib::Pass::Create: {
      if (!valueOf<void *>(a))
        return cudaErrorInvalidValue;
      uint64_t id = rt_.nextHandle_++;
      created.push_back({&a, id});
      appendBytes(fixed, &id, 8);
      break;
    }
    case lib::Pass::Stream: {
      uint64_t sid = 0;
      if (cudaError_t err = rt_.streams_.wireStreamLocked(
              valueOf<cudaStream_t>(a), false, &sid))
        return err;
      if (object)
        libObjectStreams_[object] = valueOf<cudaStream_t>(a);
      appendBytes(fixed, &sid, 8);
      break;
    }
    case lib::Pass::Device: {
      uint64_t addr = valueOf<uint64_t>(a);
      appendBytes(fixed, &addr, 8);
      break;
    }
    case lib::Pass::HostIn: {
      const void *p = valueOf<const void *>(a);
      if (r.nullable) {
        uint8_t present = p != nullptr;
        appendBytes(fixed, &present, 1);
        if (!p)
          break;
      }
      if (extent && !p)
        return cudaErrorInvalidValue;
      appendBytes(inputs, p, extent);
      break;
    }
    case lib::Pass::HostInOut:
      if (extent && !valueOf<void *>(a))
        return cudaErrorInvalidValue;
      appendBytes(inputs, valueOf<const void *>(a), extent);
      outputs.push_back({&a, r.pass, extent});
      break;
    case lib::Pass::HostOut:
    case lib::Pass::WorkSize:
    case lib::Pass::Table:
      if (r.nullable) {
        uint8_t present = valueOf<void *>(a) != nullptr;
        appendBytes(fixed, &present, 1);
        if (!present)
          break;
      }
      if (extent && !valueOf<void *>(a))
        return cudaErrorInvalidValue;
      outputs.push_back({&a, r.pass, extent});
      break;
    case lib::Pass::HostWork: {
      // Its name on the server: the client's address.
      uint64_t addr = valueOf<uint64_t>(a);
      appendBytes(fixed, &addr, 8);
      break;
    }
    }
  }
  fixed.insert(fixed.end(), inputs.begin(), inputs.end());
  // A library works on the stream its object was given. While that stream
  // captures, a call that only queues device work becomes a node of the
  // graph; one that makes or destroys an object or sets host-side state
  // (no device memory) runs now, as it does in CUDA; one that returns host
  // bytes after device work cannot be captured.
  auto s = libObjectStreams_.find(object);
  uint64_t captureSid = 0;
  if (s != libObjectStreams_.end() &&
      rt_.streams_.wireStreamLocked(s->second, false, &captureSid) ==
          cudaSuccess &&
      rt_.graphs_.stateLocked().capturing(captureSid)) {
    bool deviceWork = false, lifetime = false;
    for (const lib::ParamRule &r : rules) {
      deviceWork |= r.pass == lib::Pass::Device;
      lifetime |= r.pass == lib::Pass::Create || r.pass == lib::Pass::Destroy;
    }
    if (deviceWork && !lifetime) {
      if (!outputs.empty()) {
        std::string call = std::string(key) +
                           " (a library call that returns host values "
                           "cannot be captured into a graph)";
        return rt_.graphs_.refuseInCaptureLocked(captureSid, call.c_str());
      }
      return captureLibraryCallLocked(captureSid, key, std::move(fixed),
                                      scalarsOnDevice);
    }
  }

  rt_.ensureDeviceLocked();
  flatbuffers::FlatBufferBuilder &fbb = rt_.batch_.fbb();
  auto cmd = wire::CreateLibCall(fbb, fbb.CreateString(key),
                                 fbb.CreateVector(fixed), scalarsOnDevice);
  rt_.managed_.ignoreDeviceWork(!mayChangeDeviceMemory(rules));
  uint32_t index = rt_.appendLocked(wire::Command::LibCall, cmd.Union(),
                                    {"vendor library call", 0});
  rt_.managed_.ignoreDeviceWork(false);
  auto storeCreated = [&] {
    for (auto &[a, id] : created)
      std::memcpy(valueOf<void *>(*a), &id, sizeof id);
  };
  auto forgetDestroyed = [&] {
    for (int i = 0; i < count; ++i)
      if (rules[i].pass == lib::Pass::Destroy)
        libObjectStreams_.erase(valueOf<uint64_t>(args[i]));
  };
  if (outputs.empty()) {
    storeCreated();
    forgetDestroyed();
    rt_.afterAppendLocked();
    return cudaSuccess;
  }
  uint64_t total = 0;
  for (const Output &o : outputs)
    total += o.bytes;
  std::vector<uint8_t> reply(total);
  size_t got = 0;
  int code = 0;
  Runtime::Sink sink;
  sink.index = index;
  sink.payload = reply.data();
  sink.payloadSize = reply.size();
  sink.payloadGot = &got;
  sink.code = &code;
  if (cudaError_t err = rt_.roundTripLocked({sink}, /*sync=*/false))
    return err;
  *status = code;
  if (code != 0)
    return cudaSuccess;
  if (got != total) {
    std::fprintf(stderr,
                 "remote-clang: %s: the server returned %zu bytes, not %llu\n",
                 key, got, (unsigned long long)total);
    return cudaErrorUnknown;
  }
  storeCreated();
  forgetDestroyed();
  const uint8_t *from = reply.data();
  for (const Output &o : outputs) {
    ManagedMirrors::Range mirror;
    void *to = valueOf<void *>(*o.arg);
    if (o.pass != lib::Pass::Table && rt_.managed_.find(to, o.bytes, &mirror)) {
      // Into managed memory: written as a copy into it is, where its
      // current copy is (the mirror may be fenced: not by this thread).
      if (cudaError_t err = rt_.memcpyLocked(
              to, from, o.bytes, cudaMemcpyHostToDevice, cudaStreamLegacy,
              /*async=*/true, /*perThread=*/false, key))
        return err;
    } else if (o.pass != lib::Pass::Table) {
      std::memcpy(to, from, o.bytes);
    } else {
      // The library's own static table: one copy per call and arguments,
      // kept for the process as the library keeps its own.
      std::string tableKey =
          std::string(key) + '\0' + std::string(fixed.begin(), fixed.end());
      std::vector<uint8_t> &table = libTables_[tableKey];
      table.assign(from, from + o.bytes);
      const void *at = table.data();
      std::memcpy(valueOf<void *>(*o.arg), &at, sizeof at);
    }
    from += o.bytes;
  }
  return cudaSuccess;
}

cudaError_t Libraries::captureLibraryCallLocked(uint64_t sid,
                                                const std::string &key,
                                                std::vector<uint8_t> args,
                                                bool scalarsOnDevice) {
  // The node owns the encoded call.
  LibraryCommand build = [key, args, scalarsOnDevice](
                             flatbuffers::FlatBufferBuilder &fbb, uint64_t) {
    return wire::CreateLibCall(fbb, fbb.CreateString(key),
                               fbb.CreateVector(args), scalarsOnDevice)
        .Union();
  };
  bool captured;
  return rt_.graphs_.captureLocked(
      sid, GraphNode::libraryCommand(wire::Command::LibCall, std::move(build)),
      &captured);
}

} // namespace rc::rt
