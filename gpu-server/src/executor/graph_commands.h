// Executable graphs of a session (docs/graphs.md; graph_commands.cpp says
// how they are checked, built and launched), by client ID.
#ifndef RC_SERVER_GRAPH_COMMANDS_H
#define RC_SERVER_GRAPH_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/blas_commands.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/kernel_commands.h"
#include "executor/library_calls.h"
#include "protocol_generated.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rc::server {

class GraphCommands {
public:
  // Runs one node as the batched command it is (the executor's dispatch),
  // on the stream the node's caller set with DeviceBinding::overrideStreams.
  using RunNode = std::function<OpStatus(
      const wire::CommandEntry &node, uint32_t index,
      std::vector<ResultData> &results, std::string *what)>;
  GraphCommands(DeviceBinding &devices, AllocationTable &memory,
                KernelCommands &kernels, BlasCommands &blas,
                LibraryCalls &libraries, RunNode runNode)
      : devices_(devices), memory_(memory), kernels_(kernels), blas_(blas),
        libraries_(libraries), runNode_(std::move(runNode)) {}

  OpStatus handle(const wire::GraphInstantiate &c, CommandAnswer &a);
  OpStatus handle(const wire::GraphExecUpdate &c, CommandAnswer &a);
  OpStatus handle(const wire::GraphLaunch &c, CommandAnswer &a);
  OpStatus handle(const wire::GraphExecDestroy &c, CommandAnswer &a);

private:
  struct GraphExec;
  struct CheckedNode;
  // Validates node `i` like the command it is, without performing it.
  OpStatus checkNode(const wire::CommandEntry *node, uint32_t i,
                     CheckedNode *out);
  OpStatus buildCudaGraph(GraphExec &g);

  DeviceBinding &devices_;
  AllocationTable &memory_;
  KernelCommands &kernels_;
  BlasCommands &blas_;
  LibraryCalls &libraries_;
  RunNode runNode_;
  std::map<uint64_t, std::shared_ptr<GraphExec>> graphExecs_;
};

} // namespace rc::server

#endif
