// CUDA arrays and texture and surface objects (docs/textures.md): the
// session's arrays by client ID and its texture and surface objects by the
// driver's handle, both living in (and going with) their device's context.
#ifndef RC_SERVER_TEXTURE_COMMANDS_H
#define RC_SERVER_TEXTURE_COMMANDS_H

#include "executor/allocation_table.h"
#include "executor/command_answer.h"
#include "executor/device_binding.h"
#include "executor/reply_writer.h"
#include "protocol_generated.h"

#include <map>
#include <memory>

namespace rc::server {

class TextureCommands {
public:
  TextureCommands(DeviceBinding &devices, AllocationTable &memory,
                  ReplyWriter &reply)
      : devices_(devices), memory_(memory), reply_(reply) {}

  OpStatus handle(const wire::ArrayCreate &c, CommandAnswer &a);
  OpStatus handle(const wire::ArrayDestroy &c, CommandAnswer &a);
  OpStatus handle(const wire::ArrayCopy &c, CommandAnswer &a);
  OpStatus handle(const wire::TextureCreate &c, CommandAnswer &a);
  OpStatus handle(const wire::TextureDestroy &c, CommandAnswer &a);

private:
  struct ArrayRecord {
    NativeHandle native = 0;
    int device = 0;
    uint64_t rowBytes = 0, rows = 0, slices = 0;
    uint32_t flags = 0;
    std::shared_ptr<const HeldBytes> charge; // of the device budgets
  };
  struct TextureObject {
    int device = 0;
    bool surface = false;
  };
  // The session's array `id`, its device bound.
  OpStatus sessionArray(uint64_t id, ArrayRecord **out);

  DeviceBinding &devices_;
  AllocationTable &memory_;
  ReplyWriter &reply_;
  std::map<uint64_t, ArrayRecord> arrays_;
  std::map<uint64_t, TextureObject> textureObjects_;
};

} // namespace rc::server

#endif
