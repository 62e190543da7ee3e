// The images inside a CUDA fatbin and the kernel parameter records of each
// cubin. Layouts verified against clang 19 + ptxas 12.4 output on this
// project (docs/manifest.md, "Verify"):
//   fatbin header   u32 magic 0xBA55ED50, u16 version, u16 header size,
//                   u64 size of the entries that follow
//   entry header    u16 kind (1 PTX, 2 ELF), u16 version, u32 header size,
//                   u64 payload size, u32 compressed size, u32 -, u16 minor,
//                   u16 major, u32 arch (90 for sm_90), u32 name offset,
//                   u32 name length, u64 flags (0x2000: LZ4-compressed,
//                   0x8000: zstd-compressed; 0x2: -G debug image), ...
//   .nv.info.<kernel> attributes: u8 format, u8 attribute; format 1 has no
//   value, 2/3 a u16 value, 4 a u16 length then that many bytes.
//   EIATTR_KPARAM_INFO (0x17, format 4, 12 bytes): u32 index, u16 ordinal,
//   u16 offset, u32 info whose bits 18..31 are the parameter size in BYTES
//   (bits 20..31 alone would be the size in 4-byte words; a 1-byte char
//   parameter has info 0x5f000, so the field starts at bit 18).
//   EIATTR_KPARAM_INFO_V2 (0x45, format 4, 12 bytes), what ptxas writes
//   instead for a kernel whose parameters pass 4 KiB (CUDA 12.1's large
//   kernel parameters): the same fields, but u32 info is the size in bytes
//   (seen: 1, 2, 8, 8000, 32000).
//   EIATTR_CBANK_PARAM_SIZE (0x19, format 3): total parameter bytes.
#ifndef RC_FATBIN_IMAGES_H
#define RC_FATBIN_IMAGES_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rc::tools {

struct FatbinImage {
  uint16_t kind = 0; // 1 PTX, 2 ELF (cubin)
  uint32_t arch = 0; // e.g. 90
  bool compressed = false;
  const uint8_t *data = nullptr;
  uint64_t size = 0;
};

bool parseFatbin(const uint8_t *data, size_t size,
                 std::vector<FatbinImage> &out, std::string *error);

struct CubinParam {
  uint16_t ordinal = 0;
  uint16_t offset = 0;
  uint32_t size = 0;
};

struct CubinKernel {
  std::vector<CubinParam> params; // sorted by ordinal
  int64_t paramBytes = -1;        // EIATTR_CBANK_PARAM_SIZE, -1 if absent
};

// Kernels of one cubin keyed by mangled name (from `.nv.info.<name>`).
bool readCubinKernels(const uint8_t *data, size_t size,
                      std::map<std::string, CubinKernel> &out,
                      std::string *error);

// Sizes of the cubin's named symbols (kernels, __device__/__constant__
// variables) keyed by name.
bool readCubinSymbols(const uint8_t *data, size_t size,
                      std::map<std::string, uint64_t> &out, std::string *error);

// The named symbols of every cubin in a fatbin that can be read (not
// compressed). True when there was at least one cubin and all were read.
bool readFatbinSymbols(const uint8_t *fatbin, size_t size,
                       std::map<std::string, uint64_t> &out);

} // namespace rc::tools

#endif
