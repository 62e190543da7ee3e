// Where the tensors of a GGUF model file (llama.cpp's format) lie in it, so
// `rc-cache preload` can upload each tensor as llama.cpp does: one upload
// from the tensor's first byte, of exactly its bytes. The content cache
// names an upload's chunks from its start, so only uploads cut this way
// find the chunks a model load asks for
// (docs/server-internals/content-cache.md, "Content cache").
//
// The format: "GGUF", a version (2 or 3), the tensor and key-value counts,
// the key-values (typed, arrays nested), each tensor's name, shape, ggml
// type and offset, then the data section at the file's alignment
// (`general.alignment`, default 32). A tensor's size is its element count
// over the type's block size times the block's bytes.
#ifndef RC_TOOLS_GGUF_TENSORS_H
#define RC_TOOLS_GGUF_TENSORS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rc::tools {

struct GgufTensor {
  std::string name;
  uint64_t offset = 0; // in the file
  uint64_t size = 0;   // bytes of its data, without padding
};

// Whether the file starts like a GGUF file.
bool looksLikeGguf(const uint8_t *file, size_t size);

// The tensors of a GGUF file of `size` bytes, in the order of the file's
// tensor list; false and *error naming the first thing that is wrong
// (truncated, an unsupported version, a ggml type this reader does not
// know, data outside the file). Reads nothing outside [file, file + size).
bool readGgufTensors(const uint8_t *file, size_t size,
                     std::vector<GgufTensor> *tensors, std::string *error);

} // namespace rc::tools

#endif
