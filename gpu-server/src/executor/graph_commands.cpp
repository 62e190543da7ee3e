// Executable graphs of a session (docs/graphs.md). The client captured the
// graph and sends its node list once (GraphInstantiate); nodes are Launch,
// Memset, MemcpyD2D, CublasGemm and LibCall commands, each after the
// previous one. Every node is validated like the batched command it is. On
// a backend with real graphs (CUDA) the nodes are replayed into a capturing
// stream and instantiated (the libraries capture their own kernels);
// GraphExecUpdate sets the parameters of the changed nodes in place, or,
// when a library's node changed, captures the whole graph again;
// GraphLaunch is one cuGraphLaunch. A graph with a GEMM of device pointer
// arrays, and every graph on the host test device, is replayed instead: a
// launch runs the node list through the ordinary command path, where those
// arrays are read and checked.
#include "executor/graph_commands.h"
#include "backend/graph_device.h"
#include "rc/command_table.h"
#include "rc/hex.h"
#include "rc/server/errors.h"

#include <cstdio>
#include <cstring>

namespace rc::server {

namespace {

// A node whose CUDA nodes the library makes: a cuBLAS GEMM, a row's call.
bool isLibraryNode(wire::Command type) {
  return type == wire::Command::CublasGemm || type == wire::Command::LibCall;
}

// An owned copy of one node command (the message it came in is freed after
// its batch).
flatbuffers::Offset<wire::CommandEntry>
copyNode(flatbuffers::FlatBufferBuilder &fbb, const wire::CommandEntry &e) {
  using wire::Command;
  switch (e.cmd_type()) {
  case Command::Launch: {
    const wire::Launch &c = *e.cmd_as_Launch();
    auto g =
        c.grid() ? fbb.CreateVector(c.grid()->data(), c.grid()->size()) : 0;
    auto b =
        c.block() ? fbb.CreateVector(c.block()->data(), c.block()->size()) : 0;
    auto a =
        c.args() ? fbb.CreateVector(c.args()->data(), c.args()->size()) : 0;
    auto l =
        wire::CreateLaunch(fbb, c.kernel_id(), g, b, c.shared_mem(), 0, a,
                           c.cooperative(), c.programmatic_serialization());
    return wire::CreateCommandEntry(fbb, Command::Launch, l.Union());
  }
  case Command::Memset: {
    const wire::Memset &c = *e.cmd_as_Memset();
    auto m = wire::CreateMemset(fbb, c.dst(), c.value(), c.size(), 0);
    return wire::CreateCommandEntry(fbb, Command::Memset, m.Union());
  }
  case Command::MemcpyD2D: {
    const wire::MemcpyD2D &c = *e.cmd_as_MemcpyD2D();
    auto m = wire::CreateMemcpyD2D(fbb, c.dst(), c.src(), c.size(), 0);
    return wire::CreateCommandEntry(fbb, Command::MemcpyD2D, m.Union());
  }
  case Command::CublasGemm: {
    const wire::CublasGemm &c = *e.cmd_as_CublasGemm();
    auto bytes = [&](const flatbuffers::Vector<uint8_t> *v) {
      return v ? fbb.CreateVector(v->data(), v->size()) : 0;
    };
    auto alpha = bytes(c.alpha()), beta = bytes(c.beta());
    auto g = wire::CreateCublasGemm(
        fbb, c.api(), c.handle(), 0, c.math_mode(), c.trans_a(), c.trans_b(),
        c.m(), c.n(), c.k(), alpha, beta, c.a(), c.b(), c.c(), c.batch_count(),
        c.compute_type(), c.algo());
    return wire::CreateCommandEntry(fbb, Command::CublasGemm, g.Union());
  }
  case Command::LibCall: {
    const wire::LibCall &c = *e.cmd_as_LibCall();
    auto function = c.function() ? fbb.CreateString(c.function()->str()) : 0;
    auto args =
        c.args() ? fbb.CreateVector(c.args()->data(), c.args()->size()) : 0;
    auto l = wire::CreateLibCall(fbb, function, args, c.scalars_on_device());
    return wire::CreateCommandEntry(fbb, Command::LibCall, l.Union());
  }
  default:
    return 0; // checkNode refused it before
  }
}

} // namespace

struct GraphCommands::GraphExec {
  int device = 0;                  // instantiated there (the current one)
  std::vector<uint8_t> buffer;     // a Batch holding copies of the nodes
  NativeHandle native = 0;         // CUgraphExec (0: replayed by the executor)
  std::vector<NativeHandle> nodes; // CUgraphNode per node (0: no node)
  const flatbuffers::Vector<flatbuffers::Offset<wire::CommandEntry>> *
  list() const {
    return flatbuffers::GetRoot<wire::Batch>(buffer.data())->commands();
  }
  size_t size() const { return list() ? list()->size() : 0; }
  // Replaces the copies (all of them, or node i by `replacement`).
  void store(
      const flatbuffers::Vector<flatbuffers::Offset<wire::CommandEntry>> *from,
      const std::map<uint32_t, const wire::CommandEntry *> &changes) {
    flatbuffers::FlatBufferBuilder fbb(1024);
    std::vector<flatbuffers::Offset<wire::CommandEntry>> entries;
    uint32_t n = from ? from->size() : 0;
    for (uint32_t i = 0; i < n; ++i) {
      auto c = changes.find(i);
      entries.push_back(
          copyNode(fbb, c != changes.end() ? *c->second : *from->Get(i)));
    }
    auto v = fbb.CreateVector(entries);
    fbb.Finish(wire::CreateBatch(fbb, 0, v, false));
    buffer.assign(fbb.GetBufferPointer(),
                  fbb.GetBufferPointer() + fbb.GetSize());
  }
};

struct GraphCommands::CheckedNode {
  wire::Command type = wire::Command::NONE;
  const KernelInfo *kernel = nullptr;
  LaunchConfig cfg;
  std::vector<uint8_t> args; // 16 bytes of slack, like a launch's own copy
  uint64_t dst = 0, src = 0, size = 0;
  uint8_t value = 0;
  // A GEMM of device pointer arrays: the nodes before it write the arrays,
  // so only a replay, which reads and checks them, may run it.
  bool pointerArrays = false;
};

OpStatus GraphCommands::checkNode(const wire::CommandEntry *node, uint32_t i,
                                  CheckedNode *out) {
  using wire::Command;
  auto where = [&](const std::string &what, OpStatus st) {
    st.detail = "node " + std::to_string(i) + " (" + what + "): " + st.detail;
    return st;
  };
  out->type = node ? node->cmd_type() : Command::NONE;
  switch (out->type) {
  case Command::Launch: {
    // The ordinary launch checks, with the launch itself diverted here.
    OnDevice none{0, devices_.bound()};
    devices_.overrideStreams(&none);
    kernels_.divertLaunches(
        [&](const KernelInfo &k, const LaunchConfig &cfg, const uint8_t *args) {
          out->kernel = &k;
          out->cfg = cfg;
          out->args.assign(args, args + k.argsSize + 16);
          return OpStatus::success();
        });
    std::string what = "kernel launch";
    OpStatus st = kernels_.launch(*node->cmd_as_Launch(), &what);
    devices_.overrideStreams(nullptr);
    kernels_.divertLaunches(nullptr);
    return st.ok() ? st : where(what, st);
  }
  case Command::Memset: {
    const wire::Memset &c = *node->cmd_as_Memset();
    out->dst = c.dst(), out->value = c.value(), out->size = c.size();
    OpStatus st = c.size()
                      ? memory_.checkRange("destination", c.dst(), c.size())
                      : OpStatus::success();
    return st.ok() ? st : where("cudaMemsetAsync", st);
  }
  case Command::MemcpyD2D: {
    const wire::MemcpyD2D &c = *node->cmd_as_MemcpyD2D();
    out->dst = c.dst(), out->src = c.src(), out->size = c.size();
    OpStatus st = OpStatus::success();
    if (c.size() &&
        !(st = memory_.checkRange("source", c.src(), c.size())).ok())
      return where("cudaMemcpyAsync (device to device)", st);
    if (c.size() &&
        !(st = memory_.checkRange("destination", c.dst(), c.size())).ok())
      return where("cudaMemcpyAsync (device to device)", st);
    return st;
  }
  case Command::CublasGemm: {
    const wire::CublasGemm &c = *node->cmd_as_CublasGemm();
    out->pointerArrays = c.api() == wire::CublasGemmApi::SgemmBatched ||
                         c.api() == wire::CublasGemmApi::GemmBatchedEx;
    // The ordinary checks on the graph's stream, without the call itself.
    OnDevice none{0, devices_.bound()};
    devices_.overrideStreams(&none);
    blas_.setCheckOnly(true);
    std::string what = "cuBLAS GEMM";
    OpStatus st = blas_.gemm(c, &what);
    devices_.overrideStreams(nullptr);
    blas_.setCheckOnly(false);
    return st.ok() ? st : where(what, st);
  }
  case Command::LibCall: {
    // The ordinary checks of its row, without the call itself.
    OnDevice none{0, devices_.bound()};
    devices_.overrideStreams(&none);
    libraries_.setCheckOnly(true);
    std::string what = "vendor library call";
    std::vector<ResultData> unused;
    OpStatus st = runNode_(*node, i, unused, &what);
    devices_.overrideStreams(nullptr);
    libraries_.setCheckOnly(false);
    return st.ok() ? st : where(what, st);
  }
  default: {
    // The command table's graphNode column lists the ones handled above.
    const wire::CommandInfo *info = wire::commandInfo(out->type);
    return OpStatus::fail(
        kErrInvalidValue,
        "node " + std::to_string(i) + ": " +
            (info ? std::string(info->api)
                  : "command type " + std::to_string(int(out->type))) +
            " cannot be a graph node (kernel launches, memsets, "
            "device-to-device copies, cuBLAS GEMMs and vendor "
            "library calls can)");
  }
  }
}

// Replays the nodes into a capturing stream: each becomes exactly the node
// the batched command would have issued.
OpStatus GraphCommands::buildCudaGraph(GraphExec &g) {
  GraphDevice *gd = devices_.ctx()->graphs();
  NativeHandle cs = 0;
  OpStatus st = gd->beginCapture(&cs);
  if (!st.ok())
    return st;
  std::vector<ResultData> unused;
  const auto *list = g.list();
  for (uint32_t i = 0; list && i < list->size() && st.ok(); ++i) {
    std::string what;
    OnDevice capture{cs, devices_.bound()};
    devices_.overrideStreams(&capture);
    st = runNode_(*list->Get(i), i, unused, &what);
    devices_.overrideStreams(nullptr);
    NativeHandle node = 0;
    // Zero-byte copies and memsets are no-ops: they create no node. A
    // library's call makes as many as the library likes; it is never
    // updated in place.
    wire::Command type = list->Get(i)->cmd_type();
    bool noNode = type == wire::Command::Memset
                      ? list->Get(i)->cmd_as_Memset()->size() == 0
                  : type == wire::Command::MemcpyD2D
                      ? list->Get(i)->cmd_as_MemcpyD2D()->size() == 0
                      : isLibraryNode(type);
    if (st.ok() && !noNode)
      st = gd->lastNode(cs, &node);
    if (!st.ok())
      st.detail = "node " + std::to_string(i) + " (" + what + "): " + st.detail;
    g.nodes.push_back(node);
  }
  NativeHandle exec = 0;
  OpStatus end = gd->endCapture(cs, !st.ok(), &exec);
  if (!st.ok())
    return st;
  if (!end.ok())
    return end;
  g.native = exec;
  return end;
}

OpStatus GraphCommands::handle(const wire::GraphInstantiate &c,
                               CommandAnswer &) {
  if (c.exec() == 0 || graphExecs_.count(c.exec()))
    return OpStatus::fail(kErrInvalidValue,
                          "graph exec handle " + hexAddress(c.exec()) +
                              " is reserved or already in use");
  const auto *nodes = c.nodes();
  bool replayed = !devices_.ctx()->graphs();
  for (uint32_t i = 0; nodes && i < nodes->size(); ++i) {
    CheckedNode checked;
    OpStatus st = checkNode(nodes->Get(i), i, &checked);
    if (!st.ok())
      return st;
    replayed = replayed || checked.pointerArrays;
  }
  auto g = std::make_shared<GraphExec>();
  g->device = devices_.bound();
  g->store(nodes, {});
  if (!replayed) {
    OpStatus st = buildCudaGraph(*g);
    if (!st.ok())
      return st;
  }
  graphExecs_[c.exec()] = std::move(g);
  return OpStatus::success();
}

OpStatus GraphCommands::handle(const wire::GraphExecUpdate &c,
                               CommandAnswer &) {
  auto it = graphExecs_.find(c.exec());
  if (it == graphExecs_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown graph exec " + hexAddress(c.exec()));
  GraphExec &g = *it->second;
  OpStatus bound = devices_.bind(g.device);
  if (!bound.ok())
    return bound;
  const auto *idx = c.indices();
  const auto *nodes = c.nodes();
  size_t n = idx ? idx->size() : 0;
  if (n != (nodes ? nodes->size() : 0))
    return OpStatus::fail(kErrInvalidValue,
                          "indices and nodes differ in length");
  // All checks first: an update is applied completely or not at all.
  std::vector<CheckedNode> checked(n);
  std::map<uint32_t, const wire::CommandEntry *> changes;
  for (uint32_t j = 0; j < n; ++j) {
    uint32_t i = idx->Get(j);
    if (i >= g.size())
      return OpStatus::fail(kErrInvalidValue,
                            "node index " + std::to_string(i) +
                                " is past the graph's " +
                                std::to_string(g.size()) + " nodes");
    OpStatus st = checkNode(nodes->Get(j), i, &checked[j]);
    if (!st.ok())
      return st;
    // The client decides compatibility as CUDA does; a node whose type
    // changes is a client bug, never applied.
    if (checked[j].type != g.list()->Get(i)->cmd_type())
      return OpStatus::fail(kErrInvalidValue,
                            "node " + std::to_string(i) +
                                " changes type: the update is "
                                "incompatible (re-instantiate)");
    changes[i] = nodes->Get(j);
  }
  bool libraryChanged = false, pointerArrays = false;
  for (const CheckedNode &k : checked) {
    libraryChanged = libraryChanged || isLibraryNode(k.type);
    pointerArrays = pointerArrays || k.pointerArrays;
  }
  if (g.native && pointerArrays) {
    // A GEMM now takes pointer arrays: from here on the graph is replayed.
    OpStatus st = devices_.ctx()->graphs()->destroy(g.native);
    if (!st.ok())
      return st;
    g.native = 0;
    g.nodes.clear();
  }
  if (g.native && libraryChanged) {
    // The library picked its kernels when the call was captured: capture
    // the whole graph again with the new nodes; on failure the old one
    // stays.
    GraphExec next;
    next.device = g.device;
    next.store(g.list(), changes);
    OpStatus st = buildCudaGraph(next);
    if (!st.ok())
      return st;
    devices_.ctx()->graphs()->destroy(g.native);
    g.native = next.native;
    g.nodes = std::move(next.nodes);
    g.buffer = std::move(next.buffer);
    return st;
  }
  if (g.native) {
    GraphDevice *gd = devices_.ctx()->graphs();
    for (uint32_t j = 0; j < n; ++j) {
      uint32_t i = idx->Get(j);
      const CheckedNode &k = checked[j];
      if (!g.nodes[i])
        return OpStatus::fail(
            kErrNotSupported,
            "node " + std::to_string(i) +
                " was an empty copy or memset when instantiated; "
                "it cannot be updated (re-instantiate)");
      OpStatus st =
          k.type == wire::Command::Launch
              ? gd->setKernel(g.native, g.nodes[i], *k.kernel, k.cfg,
                              k.args.data())
          : k.type == wire::Command::Memset
              ? gd->setMemset(g.native, g.nodes[i], k.dst, k.value, k.size)
              : gd->setCopy(g.native, g.nodes[i], k.dst, k.src, k.size);
      if (!st.ok()) {
        st.detail = "node " + std::to_string(i) + ": " + st.detail;
        return st;
      }
    }
  }
  g.store(g.list(), changes);
  return OpStatus::success();
}

OpStatus GraphCommands::handle(const wire::GraphLaunch &c, CommandAnswer &) {
  auto it = graphExecs_.find(c.exec());
  if (it == graphExecs_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown graph exec " + hexAddress(c.exec()));
  NativeHandle s = 0;
  GraphExec &g = *it->second;
  OpStatus st = devices_.bindStream(c.stream(), &s);
  if (!st.ok())
    return st;
  if (devices_.bound() != g.device)
    return OpStatus::fail(kErrInvalidValue,
                          "graph exec " + hexAddress(c.exec()) +
                              " belongs to device " + std::to_string(g.device) +
                              ", the stream to device " +
                              std::to_string(devices_.bound()));
  // Faults of a graph's kernels surface at a later sync: name the graph.
  devices_.noteLaunch("graph exec " + hexAddress(c.exec()) + " (" +
                      std::to_string(g.size()) + " nodes)");
  if (g.native)
    return devices_.ctx()->graphs()->launch(g.native, s);
  // Replayed: the nodes, in order, on the launch's stream.
  std::shared_ptr<GraphExec> keep = it->second;
  std::vector<ResultData> unused;
  const auto *list = g.list();
  for (uint32_t i = 0; list && i < list->size(); ++i) {
    std::string what;
    OnDevice launchStream{s, g.device};
    devices_.overrideStreams(&launchStream);
    st = runNode_(*list->Get(i), i, unused, &what);
    devices_.overrideStreams(nullptr);
    if (!st.ok()) {
      st.detail = "node " + std::to_string(i) + " (" + what + "): " + st.detail;
      return st;
    }
  }
  return st;
}

OpStatus GraphCommands::handle(const wire::GraphExecDestroy &c,
                               CommandAnswer &) {
  auto it = graphExecs_.find(c.exec());
  if (it == graphExecs_.end())
    return OpStatus::fail(kErrInvalidResourceHandle,
                          "unknown graph exec " + hexAddress(c.exec()));
  OpStatus st = devices_.bind(it->second->device);
  if (st.ok() && it->second->native)
    st = devices_.ctx()->graphs()->destroy(it->second->native);
  graphExecs_.erase(it);
  return st;
}

} // namespace rc::server
