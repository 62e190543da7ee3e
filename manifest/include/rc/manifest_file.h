// Loading and writing manifest files (`.rcm`) and embedded fragments.
#ifndef RC_MANIFEST_FILE_H
#define RC_MANIFEST_FILE_H

#include "manifest_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rc {

struct LoadedManifest {
  std::string path;
  std::vector<uint8_t> bytes;
  uint64_t hash = 0; // fnv1a64 of the file bytes: what Hello carries
  const manifest::Manifest *root = nullptr;
};

// Reads and verifies a manifest; on failure returns false and sets *error to
// a sentence naming the file and the problem.
bool loadManifest(const std::string &path, LoadedManifest &out,
                  std::string *error);
// Verifies bytes already in memory (fragments, tests).
bool verifyManifestBytes(const uint8_t *data, size_t size, std::string *error);

const manifest::Kernel *findKernel(const manifest::Manifest &m, uint64_t id);

bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string *error);
bool writeFile(const std::string &path, const void *data, size_t size,
               std::string *error);

} // namespace rc

#endif
