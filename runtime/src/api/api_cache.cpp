// rc-cache (tools/rc-cache) reaches the server's content cache through
// this process's connection (docs/server-internals/content-cache.md, "Content
// cache").
#include "api/global.h"

#include <cstring>
#include <string>
#include <vector>

using rc::rt::runtime;

extern "C" {

// `hashes`: `count` chunk names of 32 hex digits. *json gets a malloc'd
// copy of the server's answer, which the caller frees.
cudaError_t __rc_cache_control(int evict, const char *const *hashes,
                               size_t count, char **json) {
  std::vector<std::string> named(hashes, hashes + count);
  std::string text;
  cudaError_t err =
      runtime().transfers().cacheControl(evict != 0, named, &text);
  if (err == cudaSuccess && json)
    *json = strdup(text.c_str());
  return rc::rt::record(err);
}

} // extern "C"
