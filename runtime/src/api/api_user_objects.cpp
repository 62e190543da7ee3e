// CUDA user objects (graphs/user_objects.h): references held by the
// program, by graphs and by executable graphs, all on the client.
#include "api/global.h"
#include "core/handle.h"
#include "graphs/user_objects.h"

using rc::rt::GraphState;
using rc::rt::handleId;
using rc::rt::record;
using rc::rt::runtime;
using rc::rt::UserObjects;

namespace {
bool isGraph(cudaGraph_t graph) {
  return runtime().withGraphs([&](GraphState &graphs) {
    return graphs.graph(handleId(graph)) != nullptr;
  });
}
} // namespace

extern "C" {

cudaError_t cudaUserObjectCreate(cudaUserObject_t *object, void *ptr,
                                 cudaHostFn_t destroy,
                                 unsigned int initialRefcount,
                                 unsigned int flags) {
  if (!object)
    return record(cudaErrorInvalidValue);
  uint64_t id = 0;
  cudaError_t err =
      UserObjects::instance().create(&id, ptr, destroy, initialRefcount, flags);
  if (err == cudaSuccess)
    *object = rc::rt::toHandle<cudaUserObject_t>(id);
  return record(err);
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  return record(UserObjects::instance().retain(handleId(object), count));
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  return record(UserObjects::instance().release(handleId(object), count));
}

cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph,
                                      cudaUserObject_t object,
                                      unsigned int count, unsigned int flags) {
  if ((flags & ~unsigned(cudaGraphUserObjectMove)) || !isGraph(graph))
    return record(cudaErrorInvalidValue);
  return record(UserObjects::instance().ownerRetain(
      handleId(graph), handleId(object), count,
      flags & cudaGraphUserObjectMove));
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph,
                                       cudaUserObject_t object,
                                       unsigned int count) {
  if (!isGraph(graph))
    return record(cudaErrorInvalidValue);
  return record(UserObjects::instance().ownerRelease(handleId(graph),
                                                     handleId(object), count));
}

} // extern "C"
