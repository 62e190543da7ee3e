// Questions only the GPU's driver answers (docs/runtime-api.md, "Asked of
// the server"): the widest 1D linear texture of a format, and the cluster
// occupancy of a kernel. They change nothing; the answer is Result.addr.
#include "backend/texture_device.h"
#include "executor/kernel_commands.h"
#include "rc/server/errors.h"

namespace rc::server {

namespace {

// cudaClusterSchedulingPolicy: Default, Spread, LoadBalancing.
constexpr int kLastSchedulingPolicy = 2;

// The cluster dimension of a ClusterOccupancy: absent or all 0 (the
// kernel's own), or three non-zero sizes.
OpStatus clusterOf(const wire::ClusterOccupancy &c, ClusterQuery *q) {
  const auto *cluster = c.cluster();
  if (!cluster)
    return OpStatus::success();
  if (cluster->size() != 3)
    return OpStatus::fail(kErrInvalidValue,
                          "a cluster dimension needs 3 sizes");
  int zeros = 0;
  for (int i = 0; i < 3; ++i)
    zeros += (q->cluster[i] = cluster->Get(i)) == 0;
  if (zeros != 0 && zeros != 3)
    return OpStatus::fail(
        kErrInvalidClusterSize,
        "cluster dimension (" + std::to_string(q->cluster[0]) + "," +
            std::to_string(q->cluster[1]) + "," +
            std::to_string(q->cluster[2]) + ") has a size of 0");
  return OpStatus::success();
}

} // namespace

OpStatus KernelCommands::driverQuery(const wire::CommandEntry &entry,
                                     CommandAnswer &a) {
  OpStatus st;
  if (const auto *c = entry.cmd_as_TextureLinearWidth()) {
    if (!(st = devices_.checkDevice(c->device())).ok() ||
        !(st = devices_.bind(c->device())).ok())
      return st;
    ChannelFormat format;
    if (const wire::ChannelFormat *f = c->format())
      format = ChannelFormat{f->x(), f->y(), f->z(), f->w(), f->kind()};
    if (!format.elementBytes())
      return OpStatus::fail(
          kErrInvalidChannelDescriptor,
          "a texture reads 1, 2 or 4 channels of 8, 16 or 32 bits "
          "each");
    if (!(st =
              devices_.ctx()->textures()->linearWidth1D(format, &a.result.addr))
             .ok())
      return st;
    a.give();
    return st;
  }
  const auto *c = entry.cmd_as_ClusterOccupancy();
  *a.what = c->potential_size() ? "cudaOccupancyMaxPotentialClusterSize"
                                : "cudaOccupancyMaxActiveClusters";
  const KernelInfo *kernel = nullptr;
  std::string why;
  if (c->module_function())
    kernel = moduleKernel(c->kernel(), &why);
  else
    kernel = sessionKernel(c->kernel(), &why);
  if (!kernel)
    return OpStatus::fail(kErrInvalidDeviceFunction, why);
  *a.what += " (" +
             (kernel->demangled.empty() ? kernel->name : kernel->demangled) +
             ")";
  ClusterQuery q;
  q.potentialSize = c->potential_size();
  q.schedulingPolicy = c->scheduling_policy();
  if (q.schedulingPolicy < 0 || q.schedulingPolicy > kLastSchedulingPolicy)
    return OpStatus::fail(kErrInvalidValue,
                          "cluster scheduling policy " +
                              std::to_string(q.schedulingPolicy));
  // Stream 0 of the current device: the configuration's stream only says
  // which context, and the query runs on the current device.
  if (!(st = clusterOf(*c, &q)).ok() ||
      !(st = launchConfig(c->grid(), c->block(), c->shared_mem(), 0, &q.launch))
           .ok())
    return st;
  int answer = 0;
  if (!(st = devices_.ctx()->clusterOccupancy(*kernel, q, &answer)).ok())
    return st;
  a.result.addr = uint64_t(answer < 0 ? 0 : answer);
  a.give();
  return st;
}

} // namespace rc::server
