// The client runtime's side of authentication (docs/security.md) against
// rc-server's core on the host test device, in memory and over real tcp
// and shm (TransportRuntimeTest): the right key connects, a missing or wrong
// key fails the first CUDA call with a message naming the cause, and a client
// with a key refuses a server that cannot prove it holds the same key.
#include "in_process_runtime.h"
#include "key_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace st = rc::server::test;
using namespace rc;
using rc::test::KeyDir;

namespace {

class AuthRuntimeTest : public st::TransportRuntimeTest {
protected:
  // Starts the server (keys from serverKeys, if any) and a runtime with
  // clientKeys; the result of its connecting, with what it printed.
  cudaError_t connect(const std::string &serverKeys,
                      const std::string &clientKeys, std::string *printed) {
    rt::Connector connector = startServer(serverKeys);
    rt::Options opts;
    opts.flusherThread = false;
    opts.authKeyFile = clientKeys;
    rt = std::make_unique<rt::Runtime>(connector,
                                       st::testManifestLoader(m.path), opts);
    testing::internal::CaptureStderr();
    cudaError_t e = rt->ensureConnected();
    *printed = testing::internal::GetCapturedStderr();
    return e;
  }

  KeyDir keys;
};

TEST_P(AuthRuntimeTest, TheRightKeyConnects) {
  std::string key = keys.newKey("k"), printed;
  ASSERT_EQ(connect(key, key, &printed), cudaSuccess) << printed;
  void *d = nullptr;
  ASSERT_EQ(rt->malloc(&d, 64), cudaSuccess);
  std::vector<uint8_t> in(64, 7), out(64, 0);
  ASSERT_EQ(rt->memcpy(d, in.data(), 64, cudaMemcpyHostToDevice, nullptr, false,
                       false),
            cudaSuccess);
  ASSERT_EQ(rt->memcpy(out.data(), d, 64, cudaMemcpyDeviceToHost, nullptr,
                       false, false),
            cudaSuccess);
  EXPECT_EQ(out, in);
}

TEST_P(AuthRuntimeTest, AClientWithoutAKeyIsToldToSetOne) {
  std::string printed;
  EXPECT_EQ(connect(keys.newKey("k"), "", &printed), cudaErrorNoDevice);
  EXPECT_NE(printed.find("authentication required"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("RC_AUTH_KEY_FILE"), std::string::npos) << printed;
}

TEST_P(AuthRuntimeTest, AWrongKeyIsRefused) {
  std::string printed;
  EXPECT_EQ(connect(keys.newKey("server"), keys.newKey("client"), &printed),
            cudaErrorNoDevice);
  EXPECT_NE(printed.find("refused the session: authentication failed"),
            std::string::npos)
      << printed;
}

TEST_P(AuthRuntimeTest, AClientWithAKeyRefusesAServerThatAskedForNone) {
  std::string printed;
  EXPECT_EQ(connect("", keys.newKey("k"), &printed), cudaErrorNoDevice);
  EXPECT_NE(printed.find("is not trusted: it did not ask for key 'default'"),
            std::string::npos)
      << printed;
}

INSTANTIATE_TEST_SUITE_P(Transports, AuthRuntimeTest,
                         ::testing::Values("mem", "tcp", "shm"));

// A server that challenges but cannot answer: it sends a HelloReply with a
// proof made without the key.
class ImpostorConnection : public transport::Connection {
public:
  transport::Status send(const void *data, size_t size) override {
    const auto *msg = wire::GetMessage(data);
    (void)size;
    flatbuffers::FlatBufferBuilder fbb;
    if (msg->body_type() == wire::Body::Hello) {
      std::vector<uint8_t> nonce(32, 1);
      auto c = wire::CreateAuthChallengeDirect(fbb, &nonce, 5);
      wire::FinishMessageBuffer(
          fbb, wire::CreateMessage(fbb, wire::Body::AuthChallenge, c.Union()));
    } else {
      std::vector<uint8_t> proof(32, 0);
      auto p = fbb.CreateVector(proof);
      wire::HelloReplyBuilder hr(fbb);
      hr.add_ok(true);
      hr.add_auth_proof(p);
      wire::FinishMessageBuffer(fbb,
                                wire::CreateMessage(fbb, wire::Body::HelloReply,
                                                    hr.Finish().Union()));
    }
    pending.assign(fbb.GetBufferPointer(),
                   fbb.GetBufferPointer() + fbb.GetSize());
    return transport::Status::Ok;
  }
  transport::Status recv(std::vector<uint8_t> &message, int) override {
    message = pending;
    return transport::Status::Ok;
  }
  bool peerAlive() override { return true; }
  std::string peerDescription() const override { return "impostor"; }
  std::string lastError() const override { return ""; }
  std::vector<uint8_t> pending;
};

// Connects a runtime holding the key file `keyFile` to an impostor; what
// the runtime printed.
std::string connectToImpostor(const std::string &keyFile) {
  rt::Options opts;
  opts.flusherThread = false;
  opts.authKeyFile = keyFile;
  rt::Runtime runtime(
      [](int, std::string *) {
        return std::unique_ptr<transport::Connection>(new ImpostorConnection);
      },
      nullptr, opts);
  testing::internal::CaptureStderr();
  EXPECT_EQ(runtime.ensureConnected(), cudaErrorNoDevice);
  return testing::internal::GetCapturedStderr();
}

TEST(AuthRuntime, AServerThatCannotProveTheKeyIsRefused) {
  KeyDir keys;
  std::string printed = connectToImpostor(keys.newKey("k"));
  EXPECT_NE(printed.find("impostor is not trusted: it did not prove that it "
                         "holds key 'default'"),
            std::string::npos)
      << printed;
}

TEST(AuthRuntime, AKeyFileOthersCanReadIsRefusedNamingIt) {
  KeyDir keys;
  std::string file = keys.newKey("k");
  chmod(file.c_str(), 0644);
  std::string printed = connectToImpostor(file);
  EXPECT_NE(printed.find("refusing key file " + file), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("chmod 600"), std::string::npos) << printed;
  EXPECT_NE(printed.find("(RC_AUTH_KEY_FILE)"), std::string::npos) << printed;
}

} // namespace
