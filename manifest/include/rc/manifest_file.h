// Loading and writing manifest files (`.rcm`) and embedded fragments.
#ifndef RC_MANIFEST_FILE_H
#define RC_MANIFEST_FILE_H

#include "manifest_generated.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rc {

// A manifest file is the flatbuffer, then, in the files rc-link writes, a
// trailer that records the flatbuffer's hash (kManifestHashTrailer). The
// hash is the manifest's identity in Hello; computing it reads every byte,
// 250 ms and more for llama.cpp's 172 MB of cubins, on every program
// start. A client takes it from the trailer and maps the file, so only the
// kernel and variable tables it reads are paged in; rc-server computes it
// and refuses a file whose trailer disagrees with its contents.
struct LoadedManifest {
  std::string path;
  // The contents when owned (tests, fragments); empty when mapped.
  std::vector<uint8_t> bytes;
  std::shared_ptr<const uint8_t> mapping; // a mapped file, the trailer off
  size_t mappedSize = 0;
  uint64_t hash = 0; // fnv1a64 of the flatbuffer: what Hello carries
  const manifest::Manifest *root = nullptr;

  const uint8_t *data() const { return mapping ? mapping.get() : bytes.data(); }
  size_t size() const { return mapping ? mappedSize : bytes.size(); }
};

// "RCMHASH1" then the flatbuffer's fnv1a64, little-endian.
constexpr size_t kManifestHashTrailer = 16;
void appendHashTrailer(std::vector<uint8_t> &flatbuffer);

enum class ManifestHash {
  Compute,       // hash the contents; a trailer must agree (the server)
  TrustRecorded, // take the trailer's hash where there is one (clients)
};

// Reads and verifies a manifest; on failure returns false and sets *error to
// a sentence naming the file and the problem.
bool loadManifest(const std::string &path, LoadedManifest &out,
                  std::string *error, ManifestHash how = ManifestHash::Compute);
// Verifies bytes already in memory (fragments, tests).
bool verifyManifestBytes(const uint8_t *data, size_t size, std::string *error);

const manifest::Kernel *findKernel(const manifest::Manifest &m, uint64_t id);

bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string *error);
bool writeFile(const std::string &path, const void *data, size_t size,
               std::string *error);

} // namespace rc

#endif
