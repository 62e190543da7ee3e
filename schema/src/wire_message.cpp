#include "rc/wire_message.h"

namespace rc::wire {

namespace {

// Limits for a hostile message: the server's largest batches carry a few
// thousand commands of a few tables each; nesting is at most four deep.
constexpr unsigned kMaxDepth = 64;
constexpr unsigned kMaxTables = 10000000;

template <class Vector> bool aligned8(const Vector *v) {
  return !v || reinterpret_cast<uintptr_t>(v->data()) % 8 == 0;
}

// Empty when `e` (a command of a batch or a node of a graph, called `what`)
// carries the table its type names.
std::string missingCommand(const CommandEntry &e, const std::string &what) {
  Command type = e.cmd_type();
  if (type == Command::NONE || type > Command::MAX || e.cmd())
    return {}; // nothing to read, or a type the executor refuses by number
  return what + " names a " + EnumNameCommand(type) + " but carries none";
}

// Empty when every command of the batch, and every node of a graph command,
// carries the table its type names; else names the first one that does not.
std::string missingInBatch(const Batch &batch) {
  const auto *cmds = batch.commands();
  if (!cmds)
    return {};
  for (uint32_t i = 0; i < cmds->size(); ++i) {
    const CommandEntry &entry = *cmds->Get(i);
    std::string where = "batch " + std::to_string(batch.seq()) + " command " +
                        std::to_string(i);
    std::string missing = missingCommand(entry, where);
    if (!missing.empty())
      return missing;
    const flatbuffers::Vector<flatbuffers::Offset<CommandEntry>> *nodes =
        nullptr;
    if (const GraphInstantiate *g = entry.cmd_as_GraphInstantiate())
      nodes = g->nodes();
    else if (const GraphExecUpdate *u = entry.cmd_as_GraphExecUpdate())
      nodes = u->nodes();
    for (uint32_t j = 0; nodes && j < nodes->size(); ++j) {
      missing = missingCommand(
          *nodes->Get(j), where + " (" + EnumNameCommand(entry.cmd_type()) +
                              ") node " + std::to_string(j));
      if (!missing.empty())
        return missing;
    }
  }
  return {};
}

// What is wrong with a verified message, or empty.
std::string incomplete(const Message &msg) {
  Body type = msg.body_type();
  if (type == Body::NONE)
    return "it has no body";
  if (type > Body::MAX)
    return {}; // the receiver refuses the type by number
  if (!msg.body())
    return std::string("it names a ") + EnumNameBody(type) +
           " body but carries none";
  if (const Hello *hello = msg.body_as_Hello())
    if (!aligned8(hello->manifest_hashes()))
      return "Hello.manifest_hashes is not 8-byte aligned";
  if (const Batch *batch = msg.body_as_Batch())
    return missingInBatch(*batch);
  return {};
}

} // namespace

const Message *openMessage(const uint8_t *data, size_t size, std::string *why) {
  auto refuse = [&](const std::string &reason) -> const Message * {
    if (why)
      *why =
          "malformed message of " + std::to_string(size) + " bytes: " + reason;
    return nullptr;
  };
  if (!data || size < 8 || !flatbuffers::BufferHasIdentifier(data, "RCW1"))
    return refuse("not an RCW1 protocol message");
  // Received messages live in std::vector storage (16-byte aligned); a
  // buffer that is not is a caller's bug, refused before any 8-byte read.
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0)
    return refuse("the buffer does not start 8-byte aligned");
  flatbuffers::Verifier verifier(data, size, kMaxDepth, kMaxTables);
  if (!VerifyMessageBuffer(verifier))
    return refuse("flatbuffers verification failed");
  const Message *msg = GetMessage(data);
  std::string missing = incomplete(*msg);
  if (!missing.empty())
    return refuse(missing);
  return msg;
}

} // namespace rc::wire
