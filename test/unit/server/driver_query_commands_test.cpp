// TextureLinearWidth and ClusterOccupancy, the questions only the GPU's
// driver answers, on the host test device: its model's answers come back,
// the format and the launch travel, and every malformed question is
// refused by name.
#include "ext_commands.h"
#include "host_session_fixture.h"

#include <gtest/gtest.h>

using namespace rc::server;
using namespace rc::server::test;
using namespace rc::server::test::ext;

namespace {

constexpr int kInvalidValue = 1, kInvalidConfiguration = 9, kBadChannel = 20,
              kBadFunction = 98, kBadDevice = 101, kBadClusterSize = 912;
constexpr int kSigned = 0, kFloat = 2;

Cmd cLinearWidth(int device, int bits, int channels, int kind) {
  return entry<wire::TextureLinearWidth>([=](fb::FlatBufferBuilder &f) {
    wire::ChannelFormat format(bits, channels > 1 ? bits : 0,
                               channels > 2 ? bits : 0, channels > 3 ? bits : 0,
                               kind);
    return wire::CreateTextureLinearWidth(f, device, &format);
  });
}

struct ClusterAsk {
  uint64_t kernel = 0;
  bool module = false, potential = false;
  std::vector<uint32_t> grid = {16, 1, 1}, block = {128, 1, 1};
  std::vector<uint32_t> cluster = {2, 1, 1};
  int policy = 0;
};

Cmd cClusters(const ClusterAsk &q) {
  return entry<wire::ClusterOccupancy>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateClusterOccupancyDirect(
        f, q.kernel, q.module, q.potential, &q.grid, &q.block, 0,
        q.cluster.empty() ? nullptr : &q.cluster, q.policy);
  });
}

class DriverQueryCommandsTest : public HostSessionTest {
protected:
  int testDevices() const override { return 2; }
  uint64_t answer(const Cmd &cmd) {
    last_ = send1(batch(++seq_, {cmd}));
    const wire::BatchReply *br = asBatchReply(last_);
    EXPECT_NE(br, nullptr);
    if (!br)
      return 0;
    EXPECT_FALSE(br->errors() && br->errors()->size())
        << br->errors()->Get(0)->message()->str();
    const wire::Result *r = resultAt(br, 0);
    EXPECT_NE(r, nullptr);
    return r ? r->addr() : 0;
  }
  std::string bad(const Cmd &cmd, int code) {
    ++seq_;
    return expectError(batch(seq_, {cmd}), 0, code, seq_);
  }
  Bytes last_;
  uint64_t seq_ = 0;
};

TEST_F(DriverQueryCommandsTest, LinearWidthIsTheDevicesAnswerForTheFormat) {
  open();
  // The host device's model: 2^28 elements, 2^30 bytes in all.
  EXPECT_EQ(answer(cLinearWidth(0, 8, 1, kSigned)), uint64_t(1) << 28);
  EXPECT_EQ(answer(cLinearWidth(0, 32, 4, kFloat)), uint64_t(1) << 26);
  EXPECT_EQ(answer(cLinearWidth(1, 16, 2, kFloat)), uint64_t(1) << 28);
  EXPECT_EQ(answer(cLinearWidth(1, 32, 2, kFloat)), uint64_t(1) << 27);
}

TEST_F(DriverQueryCommandsTest, LinearWidthRefusesBadFormatsAndDevices) {
  open();
  EXPECT_NE(bad(cLinearWidth(0, 32, 3, kFloat), kBadChannel).find("channels"),
            std::string::npos);
  bad(cLinearWidth(0, 12, 1, kFloat), kBadChannel);
  EXPECT_NE(bad(cLinearWidth(0, 8, 1, kFloat), kInvalidValue).find("kind"),
            std::string::npos);
  bad(cLinearWidth(0, 8, 1, 7), kInvalidValue);
  EXPECT_NE(bad(cLinearWidth(2, 8, 1, kSigned), kBadDevice).find("device 2"),
            std::string::npos);
  bad(cLinearWidth(-1, 8, 1, kSigned), kBadDevice);
}

TEST_F(DriverQueryCommandsTest, ClusterOccupancyOfAManifestKernel) {
  open();
  ClusterAsk q;
  q.kernel = m.scaleId;
  // The host device's model: one block of a cluster per multiprocessor.
  EXPECT_EQ(answer(cClusters(q)), 132u / 2);
  q.cluster = {2, 2, 1};
  q.grid = {4, 4, 1};
  EXPECT_EQ(answer(cClusters(q)), 132u / 4);
  q.potential = true;
  EXPECT_EQ(answer(cClusters(q)), 8u);
}

TEST_F(DriverQueryCommandsTest, ClusterOccupancyOfAModuleKernel) {
  open();
  const char ptx[] = ".version 8.4\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k()\n{\n\tret;\n}\n";
  last_ = send1(
      batch(++seq_, {cModuleLoad(5, std::string(ptx)), cFunction(5, "k", 9)}));
  const wire::BatchReply *br = asBatchReply(last_);
  ASSERT_NE(br, nullptr);
  ASSERT_FALSE(br->errors() && br->errors()->size());
  ClusterAsk q;
  q.kernel = 9;
  q.module = true;
  q.cluster = {4, 1, 1};
  EXPECT_EQ(answer(cClusters(q)), 132u / 4);
  q.module = false; // 9 is no manifest kernel
  bad(cClusters(q), kBadFunction);
}

TEST_F(DriverQueryCommandsTest, ClusterOccupancyRefusesBadQuestionsByName) {
  open();
  ClusterAsk q;
  q.kernel = 0x1234;
  EXPECT_NE(bad(cClusters(q), kBadFunction).find("0x0000000000001234"),
            std::string::npos);
  q.kernel = m.scaleId;
  q.module = true;
  EXPECT_NE(bad(cClusters(q), kBadFunction).find("modules"), std::string::npos);
  q.module = false;
  std::string why = bad(cClusters([&] {
                          ClusterAsk b = q;
                          b.cluster = {2, 0, 1};
                          return b;
                        }()),
                        kBadClusterSize);
  EXPECT_NE(why.find("cudaOccupancyMaxActiveClusters"), std::string::npos)
      << why;
  EXPECT_NE(why.find("(2,0,1)"), std::string::npos) << why;
  ClusterAsk noCluster = q;
  noCluster.cluster.clear();
  bad(cClusters(noCluster), kBadClusterSize); // the host knows none
  ClusterAsk odd = q;
  odd.grid = {15, 1, 1};
  bad(cClusters(odd), kBadClusterSize);
  ClusterAsk big = q;
  big.cluster = {16, 1, 1};
  big.grid = {32, 1, 1};
  bad(cClusters(big), kBadClusterSize);
  ClusterAsk block = q;
  block.block = {2048, 1, 1};
  bad(cClusters(block), kInvalidConfiguration);
  ClusterAsk dims = q;
  dims.grid = {16, 1};
  bad(cClusters(dims), kInvalidConfiguration);
  ClusterAsk policy = q;
  policy.policy = 3;
  EXPECT_NE(bad(cClusters(policy), kInvalidValue).find("policy"),
            std::string::npos);
  // The session goes on.
  EXPECT_EQ(answer(cClusters(q)), 132u / 2);
}

} // namespace
