// The fake module shared by the integration programs and the test that
// writes their manifest: a minimal valid fatbin container (header + 8 bytes)
// whose hash ties registered stubs/variables to the manifest's module.
#ifndef RC_TEST_MODULE_H
#define RC_TEST_MODULE_H

#include <cstdint>

namespace rc::test {

alignas(8) static const uint8_t kTestFatbin[24] = {
    0x50, 0xed, 0x55, 0xba, 1,   0,   16,  0,   8,   0,   0, 0,
    0,    0,    0,    0,    'r', 'c', 't', 'e', 's', 't', 0, 0};
constexpr uint64_t kTestKernelId = 0x1234567887654321ull;
constexpr const char *kTestKernelName = "_Z5scalePfif";
constexpr uint64_t kTestVarId = 0x4242424242424242ull;
constexpr const char *kTestVarName = "coeffs";
constexpr uint32_t kTestVarSize = 64;

} // namespace rc::test

#endif
