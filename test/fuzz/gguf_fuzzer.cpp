// libFuzzer harness: a GGUF model file as `rc-cache preload` reads it
// (tools/rc-cache/gguf_tensors): header, key-values of every type, nested
// arrays, tensor entries, the alignment.
#include "gguf_tensors.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<rc::tools::GgufTensor> tensors;
  std::string error;
  if (!rc::tools::readGgufTensors(data, size, &tensors, &error)) {
    if (error.empty())
      std::abort(); // a refusal always says why
    return 0;
  }
  // Every tensor it returns lies inside the file.
  for (const rc::tools::GgufTensor &t : tensors)
    if (t.offset > size || t.size > size - t.offset)
      std::abort();
  return 0;
}
