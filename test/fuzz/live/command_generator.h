// Random batches for the live fuzzer: well-formed flatbuffers whose commands
// carry values chosen to hit the server's checks from both sides (zero,
// boundaries, huge numbers, addresses and handles the session really owns,
// kernels and variables of the served manifests), and now and then an
// entry that names a command without carrying it.
#ifndef RC_FUZZ_COMMAND_GENERATOR_H
#define RC_FUZZ_COMMAND_GENERATOR_H

#include "protocol_generated.h"
#include "rc/manifest_file.h"

#include <cstdint>
#include <random>
#include <vector>

namespace rc::fuzz {

class CommandGenerator {
public:
  CommandGenerator(const std::vector<LoadedManifest> &manifests,
                   std::mt19937_64 &rng);
  // A new session: forget its addresses and handles.
  void reset();
  // One Batch message with 1..maxCommands commands.
  std::vector<uint8_t> batch(uint64_t seq, int maxCommands);
  // Learns what a reply handed out (Malloc addresses, shared regions).
  void learn(const wire::BatchReply &reply);

private:
  struct Kernel {
    uint64_t id;
    uint32_t argsSize;
    std::vector<uint32_t> pointerOffsets;
  };
  struct Variable {
    uint64_t id;
    uint64_t size;
  };
  using Fbb = flatbuffers::FlatBufferBuilder;
  using Entry = flatbuffers::Offset<wire::CommandEntry>;

  Entry command(Fbb &fbb, int depth);
  Entry graphNode(Fbb &fbb);
  uint64_t size();
  uint64_t address();
  uint64_t handle(const std::vector<uint64_t> &known);
  uint64_t stream() { return handle(streams_); }
  int32_t small(int32_t lo, int32_t hi);
  bool chance(int percent);
  std::vector<uint8_t> bytes(size_t max);
  std::vector<uint8_t> launchArgs(const Kernel &k);

  std::mt19937_64 &rng_;
  std::vector<Kernel> kernels_;
  std::vector<Variable> variables_;
  // What the session may own (addresses: allocation bases and sizes).
  std::vector<std::pair<uint64_t, uint64_t>> allocations_;
  std::vector<uint64_t> streams_, events_, graphs_, blas_, regions_, vmm_,
      arrays_, modules_, functions_;
  uint64_t nextHandle_ = 16;
  // The last batch's commands by index (type, size asked for), so that a
  // reply's results can be read.
  uint64_t lastSeq_ = 0;
  std::vector<std::pair<wire::Command, uint64_t>> sent_;
};

} // namespace rc::fuzz

#endif
