// The commands for ggml-cuda's driver surface on the host test device:
// kernel attributes in HelloReply, FuncSetAttribute, cooperative / PDL
// launch flags, and driver VMM (reserve, create, map, set access, unmap,
// release, free) with its validation rules.
#include "ext_commands.h"
#include "host_session_fixture.h"

#include <gtest/gtest.h>

#include <cuda.h>

using namespace rc::server;
using namespace rc::server::test;
using namespace rc::server::test::ext;

namespace {

constexpr uint64_t kMiB2 = 2 << 20;

class ExtTest : public HostSessionTest {
protected:
  // Runs a batch that must succeed; returns its reply.
  Bytes ok(const std::vector<Cmd> &cmds) {
    Bytes r = send1(batch(++seq, cmds));
    const wire::BatchReply *br = asBatchReply(r);
    EXPECT_NE(br, nullptr);
    if (br && br->errors() && br->errors()->size())
      ADD_FAILURE() << br->errors()->Get(0)->message()->str();
    return r;
  }
  // Runs a batch that must fail at `index` with `code`; returns the message.
  std::string bad(const std::vector<Cmd> &cmds, uint32_t index, int code) {
    Bytes r = send1(batch(++seq, cmds));
    const wire::BatchReply *br = asBatchReply(r);
    if (!br || !br->errors() || br->errors()->size() != 1) {
      ADD_FAILURE() << "expected one error";
      return "";
    }
    const wire::Error *e = br->errors()->Get(0);
    EXPECT_EQ(e->index(), index);
    EXPECT_EQ(e->code(), code);
    return e->message() ? e->message()->str() : "";
  }
  uint64_t reserve(uint64_t size) {
    Bytes r = ok({cReserve(size)});
    const wire::Result *res = resultAt(asBatchReply(r), 0);
    EXPECT_NE(res, nullptr);
    return res ? res->addr() : 0;
  }

  uint64_t seq = 0;
};

TEST_F(ExtTest, HelloCarriesEveryKernelsAttributes) {
  Bytes r = send1(hello({m.hash}));
  const wire::HelloReply *hr = asHelloReply(r);
  ASSERT_NE(hr, nullptr);
  ASSERT_TRUE(hr->ok());
  ASSERT_NE(hr->kernel_attributes(), nullptr);
  ASSERT_EQ(hr->kernel_attributes()->size(), 2u); // scale and consume
  bool sawScale = false;
  for (const wire::KernelAttributes *k : *hr->kernel_attributes()) {
    sawScale = sawScale || k->kernel_id() == m.scaleId;
    EXPECT_EQ(k->max_threads_per_block(), 1024);
    EXPECT_EQ(k->num_regs(), 32);
    EXPECT_EQ(k->max_dynamic_shared_size_bytes(), 48 * 1024);
    EXPECT_EQ(k->binary_version(), 90);
    EXPECT_EQ(k->ptx_version(), 90); // ggml's PDL gate: ptxVersion >= 90
    EXPECT_EQ(k->preferred_shared_memory_carveout(), -1);
  }
  EXPECT_TRUE(sawScale);
}

TEST_F(ExtTest, FuncSetAttributeIsValidated) {
  send1(hello({m.hash}));
  ok({cSetAttr(m.scaleId, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
               100000),
      cSetAttr(m.scaleId, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
               50)});
  EXPECT_NE(
      bad({cSetAttr(0x1234, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                    1)},
          0, 98)
          .find("cudaFuncSetAttribute: unknown kernel id 0x0000000000001234"),
      std::string::npos);
  EXPECT_NE(bad({cSetAttr(m.scaleId, CU_FUNC_ATTRIBUTE_NUM_REGS, 8)}, 0, 1)
                .find("cannot be set"),
            std::string::npos);
}

TEST_F(ExtTest, CooperativeAndPdlFlagsReachTheBackend) {
  send1(hello({m.hash}));
  uint64_t p = 0;
  {
    Bytes r = ok({cMalloc(64)});
    p = resultAt(asBatchReply(r), 0)->addr();
  }
  ok({cLaunchEx(m.scaleId, scaleArgs(p, 16), true, false),
      cLaunchEx(m.scaleId, scaleArgs(p, 16), false, true),
      cLaunch(m.scaleId, scaleArgs(p, 16))});
  std::vector<LaunchRecord> l = backend->launches();
  ASSERT_EQ(l.size(), 3u);
  EXPECT_TRUE(l[0].config.cooperative);
  EXPECT_FALSE(l[0].config.programmaticSerialization);
  EXPECT_FALSE(l[1].config.cooperative);
  EXPECT_TRUE(l[1].config.programmaticSerialization);
  EXPECT_FALSE(l[2].config.cooperative ||
               l[2].config.programmaticSerialization);
}

// ggml's pool: one big reservation, chunks mapped back to back at its end.
TEST_F(ExtTest, VmmPoolMappingsAreSessionMemory) {
  send1(hello({m.hash}));
  const uint64_t reserved = 64ull << 30; // larger than the 16 GiB device
  uint64_t base = reserve(reserved);
  ASSERT_NE(base, 0u);
  ok({cCreate(1, kMiB2), cMap(base, kMiB2, 0, 1), cRelease(1)});
  // Mapped but not yet accessible: not session memory.
  EXPECT_NE(bad({cMemset(base, 1, 16)}, 0, 1).find("not inside one allocation"),
            std::string::npos);
  ok({cAccess(base, kMiB2), cCreate(2, kMiB2), cMap(base + kMiB2, kMiB2, 0, 2),
      cRelease(2), cAccess(base + kMiB2, kMiB2)});
  EXPECT_EQ(backend->bytesInUse(), 0u) << "handles released";
  // A buffer straddling the two mappings is one contiguous range.
  Bytes data(64);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = uint8_t(i + 1);
  uint64_t straddle = base + kMiB2 - 32;
  Bytes r = ok({cH2D(straddle, data), cD2H(straddle, 64)});
  const wire::Result *res = resultAt(asBatchReply(r), 1);
  ASSERT_NE(res, nullptr);
  ASSERT_EQ(res->payload()->size(), 64u);
  EXPECT_EQ(Bytes(res->payload()->begin(), res->payload()->end()), data);
  // Launch pointers inside the mapped range validate like allocations.
  ok({cLaunch(m.scaleId, scaleArgs(base + 4096, 16))});
  // Beyond the mappings, still inside the reservation: not memory.
  bad({cMemset(base + 2 * kMiB2 - 8, 0, 16)}, 0, 1);
  // Unmapping part of a mapping is refused; the whole run works.
  EXPECT_NE(bad({cUnmap(base, kMiB2 / 2)}, 0, 1).find("whole mappings"),
            std::string::npos);
  EXPECT_NE(bad({cAddrFree(base, reserved)}, 0, 1).find("cuMemUnmap it first"),
            std::string::npos);
  ok({cUnmap(base, 2 * kMiB2)});
  bad({cMemset(base, 0, 16)}, 0, 1);
  ok({cAddrFree(base, reserved)});
  bad({cMap(base, kMiB2, 0, 1)}, 0, 1); // handle 1 was released
}

TEST_F(ExtTest, VmmRejectsBadMaps) {
  send1(hello({m.hash}));
  uint64_t base = reserve(4 * kMiB2);
  ok({cCreate(5, 2 * kMiB2)});
  EXPECT_EQ(backend->bytesInUse(), 2 * kMiB2);
  EXPECT_NE(bad({cCreate(5, kMiB2)}, 0, 1).find("already in use"),
            std::string::npos);
  EXPECT_NE(bad({cMap(base, kMiB2, 0, 6)}, 0, 1).find("unknown allocation"),
            std::string::npos);
  EXPECT_NE(bad({cMap(base, 2 * kMiB2, kMiB2, 5)}, 0, 1).find("exceed"),
            std::string::npos);
  EXPECT_NE(bad({cMap(base + 3 * kMiB2, 2 * kMiB2, 0, 5)}, 0, 1)
                .find("not inside one reservation"),
            std::string::npos);
  ok({cMap(base + kMiB2, kMiB2, 0, 5)});
  EXPECT_NE(bad({cMap(base, 2 * kMiB2, 0, 5)}, 0, 1).find("overlaps"),
            std::string::npos);
  EXPECT_NE(bad({cAccess(base, 2 * kMiB2)}, 0, 1).find("whole mappings"),
            std::string::npos);
  bad({cAddrFree(base, kMiB2)}, 0, 1); // size must match the reservation
}

// An alignment the driver would refuse, or one so large that rounding an
// address up to it wraps around, is refused. The live fuzzer found the
// wrap: the test device then handed out an address a live allocation held,
// whose memory leaked when the second took its place.
TEST_F(ExtTest, ReservationsRefuseBadAlignmentsAndNeverReuseAnAddress) {
  send1(hello({m.hash}));
  for (uint64_t alignment :
       {uint64_t(3), uint64_t(1) << 41, uint64_t(1) << 63, ~uint64_t(0)})
    EXPECT_NE(bad({cReserve(kMiB2, alignment)}, 0, 1).find("power of two"),
              std::string::npos)
        << alignment;
  const uint64_t tib = uint64_t(1) << 40;
  uint64_t a = resultAt(asBatchReply(ok({cReserve(kMiB2, tib)})), 0)->addr();
  uint64_t b = resultAt(asBatchReply(ok({cReserve(kMiB2, tib)})), 0)->addr();
  EXPECT_EQ(a % tib, 0u);
  EXPECT_EQ(b % tib, 0u);
  EXPECT_GT(b, a);
  // Past the test device's address space every reservation fails, and so
  // does every allocation: nothing wraps around to a used address.
  for (uint64_t size = uint64_t(1) << 60; size != 0; size >>= 1)
    while (backend->reserveAddressSpace(size, 0) != 0) {
    }
  int small = 0; // what is left is less than a reservation's 2 MiB step
  while (backend->reserve(256) != 0)
    ASSERT_LT(++small, 1000);
  EXPECT_NE(bad({cReserve(kMiB2)}, 0, 2).find("address space is used up"),
            std::string::npos);
  EXPECT_NE(bad({cMalloc(256)}, 0, 2).find("out of memory"), std::string::npos);
}

TEST_F(ExtTest, SessionEndFreesVmmMemory) {
  send1(hello({m.hash}));
  uint64_t base = reserve(2 * kMiB2);
  ok({cCreate(1, kMiB2), cMap(base, kMiB2, 0, 1), cAccess(base, kMiB2)});
  EXPECT_EQ(backend->bytesInUse(), kMiB2);
  session.reset();
  EXPECT_EQ(backend->bytesInUse(), 0u);
}

} // namespace
