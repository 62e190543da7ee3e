// Real CUDA graphs for one session (docs/graphs.md). The executor builds a
// graph by stream capture: it opens a private capturing stream, replays the
// graph's nodes into it through the ordinary DeviceContext calls (so a node
// runs exactly the code a batched command would), notes the node each
// command created, and ends the capture into an instantiated executable
// graph. Updates set the parameters of single nodes in place.
#ifndef RC_SERVER_GRAPH_DEVICE_H
#define RC_SERVER_GRAPH_DEVICE_H

#include "rc/server/backend.h"

namespace rc::server {

class GraphDevice {
public:
  virtual ~GraphDevice() = default;
  // A new stream in capture mode (relaxed: other sessions' threads keep
  // allocating while this one captures).
  virtual OpStatus beginCapture(NativeHandle *stream) = 0;
  // The node the last command issued on `stream` created.
  virtual OpStatus lastNode(NativeHandle stream, NativeHandle *node) = 0;
  // Ends the capture, instantiates it and destroys the stream. On failure
  // (or with `abort`) everything is released and *exec stays 0.
  virtual OpStatus endCapture(NativeHandle stream, bool abort,
                              NativeHandle *exec) = 0;
  virtual OpStatus launch(NativeHandle exec, NativeHandle stream) = 0;
  // New parameters for one node of `exec` (node handles from lastNode).
  virtual OpStatus setKernel(NativeHandle exec, NativeHandle node,
                             const KernelInfo &kernel, const LaunchConfig &cfg,
                             const uint8_t *args) = 0;
  virtual OpStatus setMemset(NativeHandle exec, NativeHandle node, uint64_t dst,
                             uint8_t value, uint64_t size) = 0;
  virtual OpStatus setCopy(NativeHandle exec, NativeHandle node, uint64_t dst,
                           uint64_t src, uint64_t size) = 0;
  virtual OpStatus destroy(NativeHandle exec) = 0;
};

struct CudaDriver;
// graph_cuda.cpp: graphs of the CUDA context `context` (a CUcontext).
std::unique_ptr<GraphDevice> makeCudaGraphDevice(const CudaDriver &driver,
                                                 void *context);

} // namespace rc::server

#endif
