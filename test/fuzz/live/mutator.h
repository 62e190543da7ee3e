// Byte-level mutations of protocol messages for the live fuzzer: bit flips,
// overwritten bytes and words (with values at the edges), truncation,
// insertion and deletion, splicing two messages, duplicated ranges. Most
// results fail verification; the rest reach the server's checks with
// offsets, lengths and union types nobody wrote.
#ifndef RC_FUZZ_MUTATOR_H
#define RC_FUZZ_MUTATOR_H

#include <cstdint>
#include <random>
#include <vector>

namespace rc::fuzz {

// Applies 1..maxSteps random mutations to `message`; `other` is spliced from.
void mutate(std::vector<uint8_t> &message, const std::vector<uint8_t> &other,
            std::mt19937_64 &rng, int maxSteps = 4);

} // namespace rc::fuzz

#endif
