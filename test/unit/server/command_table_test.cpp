// The command table (rc/command_table.h): one row per wire command, the
// stream of every stream-ordered one found where rc-server looks for it,
// and a command type this build does not know refused by name while the
// session goes on.
#include "ext_commands.h"
#include "host_session_fixture.h"
#include "rc/command_table.h"
#include "rc/server/errors.h"

#include <gtest/gtest.h>

#include <set>

using namespace rc;
using namespace rc::server;
using namespace rc::server::test;

namespace {

std::set<wire::Command> allCommands() {
  std::set<wire::Command> all;
  for (int t = 1; t <= int(wire::Command::MAX); ++t)
    all.insert(wire::Command(t));
  return all;
}

// The first command of a one-command batch built by `cmd`.
struct OneCommand {
  explicit OneCommand(const Cmd &cmd) : bytes(batch(1, {cmd})) {}
  const wire::CommandEntry &entry() const {
    return *wire::GetMessage(bytes.data())->body_as_Batch()->commands()->Get(0);
  }
  Bytes bytes;
};

} // namespace

TEST(CommandTable, EveryCommandHasItsOwnRowAndNothingElseHasOne) {
  for (wire::Command t : allCommands()) {
    const wire::CommandInfo *info = wire::commandInfo(t);
    ASSERT_NE(info, nullptr) << int(t);
    EXPECT_EQ(info->type, t);
    EXPECT_NE(std::string(info->api), "") << int(t);
    // Work on a stream it names is tracked; only host-ordered commands
    // may enqueue what the deferred-sync bookkeeping cannot see.
    if (info->stream)
      EXPECT_NE(info->work, wire::GpuWork::Untracked) << info->api;
  }
  EXPECT_EQ(wire::commandInfo(wire::Command::NONE), nullptr);
  EXPECT_EQ(wire::commandInfo(wire::Command(int(wire::Command::MAX) + 1)),
            nullptr);
  EXPECT_EQ(wire::commandInfo(wire::Command(255)), nullptr);
}

TEST(CommandTable, EveryStreamOrderedCommandYieldsTheStreamItNames) {
  const uint64_t s = 0x5eed;
  std::vector<OneCommand> ordered = {
      OneCommand(cH2D(0x1000, Bytes(4, 1), s)),
      OneCommand(cD2H(0x1000, 4, s)),
      OneCommand(cH2DRing(0x1000, 0, 4, 4, s)),
      OneCommand(cH2DCached(0x1000, 4, {ContentHash{}}, s)),
      OneCommand(cCacheInsert(0x1000, 4, ContentHash{}, s)),
      OneCommand(cD2D(0x1000, 0x2000, 4, s)),
      OneCommand(cMemset(0x1000, 7, 4, s)),
      OneCommand(cLaunch(0xabc, Bytes(), s)),
      OneCommand(
          ext::cLaunchFunction(0xabc, Bytes(), {32, 1, 1}, {1, 1, 1}, s)),
      OneCommand(cEventRecord(0x10, s)),
      OneCommand(cStreamSync(s)),
  };
  std::set<wire::Command> covered;
  for (const OneCommand &c : ordered) {
    uint64_t got = 0;
    ASSERT_TRUE(wire::commandStream(c.entry(), &got))
        << int(c.entry().cmd_type());
    EXPECT_EQ(got, s) << wire::commandInfo(c.entry().cmd_type())->api;
    covered.insert(c.entry().cmd_type());
  }
  // GraphLaunch has no builder here; every other stream-ordered row must
  // be in the list above.
  for (wire::Command t : allCommands())
    if (wire::commandInfo(t)->stream && t != wire::Command::GraphLaunch)
      EXPECT_TRUE(covered.count(t)) << wire::commandInfo(t)->api;
  // Host-ordered commands name no stream even when they carry one.
  uint64_t got = 0;
  EXPECT_FALSE(wire::commandStream(OneCommand(cStreamQuery(s)).entry(), &got));
  EXPECT_FALSE(
      wire::commandStream(OneCommand(cStreamWaitEvent(s, 0x10)).entry(), &got));
}

TEST(CommandTable, ClientDeviceWorkAndGraphNodesAreTheDocumentedSets) {
  std::set<wire::Command> noDeviceWork, graphNodes;
  for (wire::Command t : allCommands()) {
    if (!wire::commandInfo(t)->clientDeviceWork)
      noDeviceWork.insert(t);
    if (wire::commandInfo(t)->graphNode)
      graphNodes.insert(t);
  }
  using C = wire::Command;
  EXPECT_EQ(
      noDeviceWork,
      (std::set<C>{C::Malloc, C::Free, C::ArrayCreate, C::MemcpyH2D,
                   C::MemcpyH2DRing, C::StreamSynchronize, C::DeviceSynchronize,
                   C::ModuleLoad, C::ModuleFunction, C::MemcpyH2DCached,
                   C::CacheInsert, C::CacheControl, C::FunctionAttributes,
                   C::TextureLinearWidth, C::ClusterOccupancy}));
  EXPECT_EQ(graphNodes, (std::set<C>{C::Launch, C::Memset, C::MemcpyD2D,
                                     C::CublasGemm, C::LibCall}));
}

class CommandDispatch : public HostSessionTest {};

TEST_F(CommandDispatch, UnknownCommandTypeIsRefusedAndTheSessionGoesOn) {
  open();
  const int unknown = int(wire::Command::MAX) + 1;
  Cmd strange = [&](flatbuffers::FlatBufferBuilder &fbb) {
    return wire::CreateCommandEntry(fbb, wire::Command(unknown),
                                    wire::CreateGoodbye(fbb).Union());
  };
  std::string e =
      expectError(batch(2, {cDeviceSync(), strange}), 1, kErrInvalidValue, 2);
  EXPECT_NE(e.find("unknown command type " + std::to_string(unknown)),
            std::string::npos)
      << e;
  EXPECT_NE(malloc(64), 0u);
}

TEST_F(CommandDispatch, ErrorsNameTheCallFromTheTable) {
  open();
  // A handler that adds nothing to the name: the table's name alone.
  std::string e = expectError(batch(2, {cStreamDestroy(0x77)}), 0,
                              kErrInvalidResourceHandle, 2);
  EXPECT_NE(e.find("cudaStreamDestroy"), std::string::npos) << e;
  e = expectError(batch(3, {cEventQuery(0x99)}), 0, kErrInvalidResourceHandle,
                  3);
  EXPECT_NE(e.find("cudaEventQuery"), std::string::npos) << e;
}
