// Array, texture/surface and stream attribute commands on the host test
// device, sent as a hostile or buggy client would: every box, size and handle
// is checked by the server itself, whatever the client runtime checked first.
#include "ext_commands.h"
#include "host_session_fixture.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace rc::server;
using namespace rc::server::test;
using namespace rc::server::test::ext;

namespace {

constexpr int kInvalidValue = 1, kInvalidPitch = 12, kBadChannel = 20,
              kBadHandle = 400;

Cmd cArray(uint64_t id, int bits, uint64_t w, uint64_t h, uint64_t d,
           uint32_t flags = 0) {
  return entry<wire::ArrayCreate>([=](fb::FlatBufferBuilder &f) {
    wire::ChannelFormat format(bits, 0, 0, 0, /*float*/ 2);
    return wire::CreateArrayCreate(f, id, &format, w, h, d, flags);
  });
}

// Host data into the array (to_array) or a read-back into the reply.
Cmd cCopy(uint64_t id, uint64_t x, uint64_t y, uint64_t w, uint64_t h,
          bool toArray, const Bytes &data = {}, uint64_t device = 0,
          uint64_t pitch = 0, uint64_t rows = 0) {
  return entry<wire::ArrayCopy>([=](fb::FlatBufferBuilder &f) {
    auto bytes = data.empty() ? 0 : f.CreateVector(data);
    return wire::CreateArrayCopy(f, id, x, y, 0, w, h, 1, toArray, bytes,
                                 device, pitch, rows, 0);
  });
}

Cmd cTexture(uint64_t array, bool surface = false, int resource = 0,
             uint64_t device = 0, uint64_t w = 0, uint64_t h = 0,
             uint64_t pitch = 0) {
  return entry<wire::TextureCreate>([=](fb::FlatBufferBuilder &f) {
    std::vector<int32_t> modes = {1, 1, 1};
    std::vector<float> border = {0, 0, 0, 0};
    wire::ChannelFormat format(32, 0, 0, 0, 2);
    return wire::CreateTextureCreateDirect(
        f, surface, resource, array, device, &format, w, h, pitch,
        surface ? nullptr : &modes, 0, 0, false, surface ? nullptr : &border);
  });
}

Cmd cTextureDestroy(uint64_t handle, bool surface = false) {
  return entry<wire::TextureDestroy>([=](fb::FlatBufferBuilder &f) {
    return wire::CreateTextureDestroy(f, handle, surface);
  });
}

class TextureCommandsTest : public HostSessionTest {
protected:
  const wire::BatchReply *run(const std::vector<Cmd> &cmds) {
    last_ = send1(batch(++seq_, cmds));
    return asBatchReply(last_);
  }
  // The batch fails at `index` with `code`; returns the message.
  std::string bad(const std::vector<Cmd> &cmds, uint32_t index, int code) {
    ++seq_;
    return expectError(batch(seq_, cmds), index, code, seq_);
  }
  void ok(const std::vector<Cmd> &cmds) {
    const wire::BatchReply *br = run(cmds);
    ASSERT_NE(br, nullptr);
    if (br->errors() && br->errors()->size())
      ADD_FAILURE() << br->errors()->Get(0)->message()->str();
  }
  Bytes last_;
  uint64_t seq_ = 0;
};

TEST_F(TextureCommandsTest, ArrayBytesGoInAndComeBack) {
  send1(hello({m.hash}));
  Bytes data(4 * 4 * 3);
  std::iota(data.begin(), data.end(), uint8_t(1));
  ok({cArray(7, 32, 4, 3, 0), cCopy(7, 0, 0, 16, 3, true, data)});
  const wire::BatchReply *br = run({cCopy(7, 4, 1, 8, 2, false)});
  const wire::Result *r = resultAt(br, 0);
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->payload(), nullptr);
  ASSERT_EQ(r->payload()->size(), 16u);
  EXPECT_EQ(r->payload()->Get(0), data[16 + 4]);
  EXPECT_EQ(r->payload()->Get(8), data[32 + 4]);
}

TEST_F(TextureCommandsTest, BadArraysBoxesAndSizesAreRefused) {
  send1(hello({m.hash}));
  EXPECT_NE(bad({cArray(0, 32, 4, 4, 0)}, 0, kInvalidValue).find("reserved"),
            std::string::npos);
  bad({cArray(1, 24, 4, 4, 0)}, 0, kBadChannel);
  bad({cArray(1, 32, 0, 4, 0)}, 0, kInvalidValue);
  EXPECT_NE(bad({cArray(1, 32, uint64_t(1) << 62, 1 << 20, 1 << 20)}, 0, 2)
                .find("overflows"),
            std::string::npos);
  ok({cArray(1, 32, 4, 4, 0)});
  bad({cArray(1, 32, 4, 4, 0)}, 0, kInvalidValue); // in use
  EXPECT_NE(bad({cCopy(2, 0, 0, 16, 1, false)}, 0, kBadHandle)
                .find("unknown CUDA array"),
            std::string::npos);
  // Outside the array: past the row, past the last row, wrapping.
  EXPECT_NE(bad({cCopy(1, 4, 0, 16, 1, false)}, 0, kInvalidValue)
                .find("not inside the array"),
            std::string::npos);
  bad({cCopy(1, 0, 3, 16, 2, false)}, 0, kInvalidValue);
  bad({cCopy(1, ~uint64_t(0), 0, 2, 1, false)}, 0, kInvalidValue);
  bad({cCopy(1, 0, 0, 0, 1, false)}, 0, kInvalidValue);
  // Host data that does not fill the box.
  EXPECT_NE(bad({cCopy(1, 0, 0, 16, 2, true, Bytes(16))}, 0, kInvalidValue)
                .find("bytes of data"),
            std::string::npos);
  // Device side: outside the session's memory, a pitch shorter than a row.
  EXPECT_NE(
      bad({cCopy(1, 0, 0, 16, 2, true, {}, 0x1234, 16, 2)}, 0, kInvalidValue)
          .find("not inside one allocation"),
      std::string::npos);
  bad({cCopy(1, 0, 0, 16, 2, true, {}, 0x1234, 8, 2)}, 0, kInvalidPitch);
}

TEST_F(TextureCommandsTest, TextureObjectsAreCheckedAndOwned) {
  send1(hello({m.hash}));
  ok({cArray(1, 32, 8, 8, 0), cArray(2, 32, 8, 8, 0, /*LDST*/ 2)});
  bad({cTexture(9)}, 0, kBadHandle);
  EXPECT_NE(bad({cTexture(1, true)}, 0, kInvalidValue)
                .find("cudaArraySurfaceLoadStore"),
            std::string::npos);
  const wire::BatchReply *br = run({cTexture(1), cTexture(2, true)});
  ASSERT_NE(resultAt(br, 0), nullptr);
  ASSERT_NE(resultAt(br, 1), nullptr);
  uint64_t tex = resultAt(br, 0)->addr(), surf = resultAt(br, 1)->addr();
  // A texture description must be whole.
  bad({entry<wire::TextureCreate>([](fb::FlatBufferBuilder &f) {
        return wire::CreateTextureCreate(f, false, 0, 1);
      })},
      0, kInvalidValue);
  // Pitch2D over memory the session does not own.
  EXPECT_NE(bad({cTexture(0, false, 3, 0x5000, 8, 8, 64)}, 0, kInvalidValue)
                .find("not inside one allocation"),
            std::string::npos);
  bad({cTexture(0, false, 3, 0x5000, 8, 8, 16)}, 0, kInvalidPitch);
  bad({cTexture(0, true, 2, 0x5000, 64)}, 0, kInvalidValue);
  bad({cTexture(0, false, 1)}, 0, 801); // mipmapped arrays
  // Destroying: only what this session made, as the kind it is.
  bad({cTextureDestroy(surf, false)}, 0, kBadHandle);
  bad({cTextureDestroy(tex + 1000)}, 0, kBadHandle);
  ok({cTextureDestroy(tex), cTextureDestroy(surf, true)});
  bad({cTextureDestroy(tex)}, 0, kBadHandle);
}

// cudaStreamSetAttribute: the attributes a stream takes, and an access
// policy window only over the session's memory.
TEST_F(TextureCommandsTest, StreamAttributesAreChecked) {
  send1(hello({m.hash}));
  auto attr = [](int attribute, uint64_t base, uint64_t bytes, float ratio) {
    return entry<wire::StreamAttribute>([=](fb::FlatBufferBuilder &f) {
      return wire::CreateStreamAttribute(f, 0, attribute, base, bytes, ratio, 2,
                                         1, 0);
    });
  };
  EXPECT_NE(bad({attr(2, 0, 0, 0)}, 0, kInvalidValue).find("not one a stream"),
            std::string::npos);
  EXPECT_NE(bad({attr(1, 0x5000, 4096, 0.5f)}, 0, kInvalidValue)
                .find("not inside one allocation"),
            std::string::npos);
  bad({attr(1, 0, 0, 2.0f)}, 0, kInvalidValue);
  ok({attr(1, 0, 0, 0.5f), attr(8, 0, 0, 0)});
}

} // namespace
