// Wire builders for the graph commands (docs/graphs.md), on top of the
// server test helpers: node lists are ordinary commands (Cmd).
#ifndef RC_SERVER_GRAPH_TEST_UTIL_H
#define RC_SERVER_GRAPH_TEST_UTIL_H

#include "server_test_util.h"

namespace rc::server::test {

inline std::vector<flatbuffers::Offset<wire::CommandEntry>>
buildNodes(flatbuffers::FlatBufferBuilder &fbb, const std::vector<Cmd> &nodes) {
  std::vector<flatbuffers::Offset<wire::CommandEntry>> out;
  for (const Cmd &n : nodes)
    out.push_back(n(fbb));
  return out;
}

inline Cmd cGraphInstantiate(uint64_t exec, std::vector<Cmd> nodes) {
  return [=](flatbuffers::FlatBufferBuilder &fbb) {
    auto v = fbb.CreateVector(buildNodes(fbb, nodes));
    auto c = wire::CreateGraphInstantiate(fbb, exec, v);
    return wire::CreateCommandEntry(fbb, wire::Command::GraphInstantiate,
                                    c.Union());
  };
}

inline Cmd cGraphUpdate(uint64_t exec, std::vector<uint32_t> indices,
                        std::vector<Cmd> nodes) {
  return [=](flatbuffers::FlatBufferBuilder &fbb) {
    auto n = fbb.CreateVector(buildNodes(fbb, nodes));
    auto i = fbb.CreateVector(indices);
    auto c = wire::CreateGraphExecUpdate(fbb, exec, i, n);
    return wire::CreateCommandEntry(fbb, wire::Command::GraphExecUpdate,
                                    c.Union());
  };
}

inline Cmd cGraphLaunch(uint64_t exec, uint64_t stream = 0) {
  return [=](flatbuffers::FlatBufferBuilder &fbb) {
    auto c = wire::CreateGraphLaunch(fbb, exec, stream);
    return wire::CreateCommandEntry(fbb, wire::Command::GraphLaunch, c.Union());
  };
}

inline Cmd cGraphDestroy(uint64_t exec) {
  return [=](flatbuffers::FlatBufferBuilder &fbb) {
    auto c = wire::CreateGraphExecDestroy(fbb, exec);
    return wire::CreateCommandEntry(fbb, wire::Command::GraphExecDestroy,
                                    c.Union());
  };
}

} // namespace rc::server::test

#endif
