// HelloReply.kernel_attributes: the cudaFuncAttributes of every kernel of
// the manifests a client announced, so it answers cudaFuncGetAttributes and
// occupancy queries without a round trip.
#ifndef RC_SERVER_HELLO_KERNEL_ATTRS_H
#define RC_SERVER_HELLO_KERNEL_ATTRS_H

#include "protocol_generated.h"
#include "rc/server/session_symbols.h"

namespace rc::server {

flatbuffers::Offset<
    flatbuffers::Vector<flatbuffers::Offset<wire::KernelAttributes>>>
helloKernelAttributes(flatbuffers::FlatBufferBuilder &fbb,
                      const SessionSymbols &symbols);

} // namespace rc::server

#endif
