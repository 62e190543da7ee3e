// What one command's handler gives back to the executor besides its status:
// the result that goes into the batch's reply. Every handler group of the
// executor (executor_dispatch.cpp lists them) answers through this.
#ifndef RC_SERVER_COMMAND_ANSWER_H
#define RC_SERVER_COMMAND_ANSWER_H

#include "protocol_generated.h"

#include <cstdint>
#include <string>

namespace rc::server {

struct ResultData {
  uint32_t index = 0;
  uint64_t addr = 0;
  double value = 0;
  int32_t code = 0;
  // Read-back bytes, already in the reply builder run() was given (0: none).
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> payload;
  bool writtenRemotely = false; // the bytes went by RMA instead
};

struct CommandAnswer {
  std::string *what = nullptr; // names the call in errors (the table's name)
  ResultData result;           // goes into the reply once given
  bool given = false;
  void give() { given = true; }
};

} // namespace rc::server

#endif
