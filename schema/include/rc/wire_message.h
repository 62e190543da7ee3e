// Opening a received protocol message (schema/protocol.fbs). Every receiver,
// rc-server and the client runtime, reads messages through openMessage and
// through nothing else.
//
// The flatbuffers Verifier proves that every offset stays inside the buffer,
// yet it accepts three things that reading the message field by field still
// trips on: a union whose type names a table that is absent (the accessor
// returns null), a vector of 8-byte scalars that is only 4-byte aligned (the
// Verifier aligns a vector's length, not its elements), and a buffer that
// does not start 8-byte aligned (the Verifier checks alignment relative to
// the buffer's start). openMessage refuses all three, so code past it may
// dereference the member of every union whose type it knows.
#ifndef RC_WIRE_MESSAGE_H
#define RC_WIRE_MESSAGE_H

#include "protocol_generated.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace rc::wire {

// The version of protocol.fbs a client states in its Hello; rc-server
// refuses any other. One definition for both sides, so they cannot drift.
constexpr uint32_t kProtocolVersion = 1;

// The message in [data, data + size), or nullptr with *why saying what is
// wrong ("malformed message of N bytes: ...", naming the missing part).
// Union types this build does not know are let through: the receiver names
// them in its own refusal.
const Message *openMessage(const uint8_t *data, size_t size, std::string *why);

} // namespace rc::wire

#endif
