#include "endpoint.h"

#include "fabric_library.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>

namespace rc::transport::detail {

namespace {
constexpr size_t kSendSlots = 32;
// Registrations kept for remote writes once no write is pending into them
// (a decode loop reads back into the same one or two buffers; more only
// cost registration calls). Pinned ones are never dropped, however many.
constexpr size_t kExposedMax = 16;
constexpr int kFiVersion = FI_VERSION(1, 17);

// Provider tuning, applied once before libfabric reads its parameters and
// only where the user has not set the variable (measured on the H100
// machine, see docs/transport.md). Over tcp, rxm places eager messages
// straight into our buffers, so a 64 KiB eager limit keeps mid-size batches
// off the rendezvous path (64 KiB round trip 125 -> 49 us) at no memory
// cost. Fewer buffers per rxm connection cut the listener's footprint from
// ~70 to ~20 MiB without a measurable latency change.
void applyProviderDefaults() {
  static std::once_flag once;
  std::call_once(once, [] {
    setenv("FI_OFI_RXM_EAGER_LIMIT", "65600", 0);
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "32", 0);
    setenv("FI_OFI_RXM_MSG_TX_SIZE", "32", 0);
    // rxm looks at its connection requests and accepts at most every 10 ms
    // by default, and a tcp connect takes several of those steps: 75-88 ms
    // of a redirect to a worker process (a second connect), 48-58 ms with
    // 1 ms (rc-server --test-device --isolation process, RC_STATS=1). A
    // look costs one epoll_wait without a timeout.
    setenv("FI_OFI_RXM_CM_PROGRESS_INTERVAL", "1000", 0);
    // Never CMA over shm, whatever the environment says. rc-server is not
    // dumpable (docs/transport-internals/memory.md, "Memory a peer may write"),
    // so a peer's process_vm_readv of it fails: a large message from the server
    // would not arrive. And CMA lets the writer of an RMA copy straight into
    // the target's memory without the target checking key or range first.
    setenv("FI_SHM_DISABLE_CMA", "1", 1);
  });
}

// fi_getinfo for one provider; FI_RMA is asked for first (bulk copies will
// use it later) and dropped if the provider cannot offer it.
int getInfo(Provider provider, const std::string &node,
            const std::string &service, fi_info **out) {
  applyProviderDefaults();
  int rc = -FI_ENODATA;
  for (uint64_t caps : {FI_MSG | FI_RMA, FI_MSG}) {
    fi_info *hints = fi_allocinfo();
    if (!hints)
      return -FI_ENOMEM;
    hints->caps = caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    // Each connection has its own domain and serialises its calls, so the
    // provider may skip its locks.
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    // No FI_MR_LOCAL: sends come straight from user memory.
    hints->domain_attr->mr_mode =
        FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(providerName(provider));
    if (provider == Provider::Tcp)
      hints->addr_format = FI_SOCKADDR_IN;
    bool source = !node.empty() || !service.empty();
    rc = fi_getinfo(kFiVersion, node.empty() ? nullptr : node.c_str(),
                    service.empty() ? nullptr : service.c_str(),
                    source ? FI_SOURCE : 0, hints, out);
    fi_freeinfo(hints);
    if (rc == 0)
      return 0;
  }
  return rc;
}
} // namespace

std::string fiError(const char *call, long rc) {
  long e = rc < 0 ? -rc : rc;
  return std::string(call) + ": " + fi_strerror(static_cast<int>(e)) + " (" +
         std::to_string(rc) + ")";
}

std::unique_ptr<Endpoint> Endpoint::open(Provider provider,
                                         const std::string &node,
                                         const std::string &service,
                                         size_t recvSlots, size_t recvSize,
                                         std::string *error) {
  std::unique_ptr<Endpoint> ep(new Endpoint());
  if (!ep->setup(provider, node, service, recvSlots, recvSize, error))
    return nullptr;
  openedCount().fetch_add(1, std::memory_order_relaxed);
  return ep;
}

std::atomic<uint64_t> &Endpoint::openedCount() {
  static std::atomic<uint64_t> count{0};
  return count;
}

bool Endpoint::warmUp(Provider provider) {
  std::string error;
  fi_info *info = nullptr;
  if (!loadFabricLibrary(&error) || getInfo(provider, "", "", &info) != 0)
    return false;
  fi_freeinfo(info);
  return true;
}

bool Endpoint::setup(Provider provider, const std::string &node,
                     const std::string &service, size_t recvSlots,
                     size_t recvSize, std::string *error) {
  provider_ = provider;
  auto fail = [&](const std::string &what) {
    if (error)
      *error = std::string("libfabric provider '") + providerName(provider) +
               "': " + what;
    return false;
  };
  std::string loadError;
  if (!loadFabricLibrary(&loadError))
    return fail(loadError);
  int rc = getInfo(provider, node, service, &info_);
  if (rc)
    return fail(
        fiError("fi_getinfo", rc) +
        (node.empty() ? "" : " for source '" + node + ":" + service + "'"));
  if ((rc = fi_fabric(info_->fabric_attr, &fabric_, nullptr)))
    return fail(fiError("fi_fabric", rc));
  if ((rc = fi_domain(fabric_, info_, &domain_, nullptr)))
    return fail(fiError("fi_domain", rc));
  fi_av_attr avAttr{};
  avAttr.type = FI_AV_TABLE;
  if ((rc = fi_av_open(domain_, &avAttr, &av_, nullptr)))
    return fail(fiError("fi_av_open", rc));
  fi_cq_attr cqAttr{};
  cqAttr.format = FI_CQ_FORMAT_MSG;
  cqAttr.wait_obj = FI_WAIT_NONE; // we poll: lowest latency
  cqAttr.size = recvSlots + kSendSlots + 64;
  if ((rc = fi_cq_open(domain_, &cqAttr, &cq_, nullptr)))
    return fail(fiError("fi_cq_open", rc));
  if ((rc = fi_endpoint(domain_, info_, &ep_, nullptr)))
    return fail(fiError("fi_endpoint", rc));
  if ((rc = fi_ep_bind(ep_, &av_->fid, 0)))
    return fail(fiError("fi_ep_bind(av)", rc));
  if ((rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV)))
    return fail(fiError("fi_ep_bind(cq)", rc));
  if ((rc = fi_enable(ep_)))
    return fail(fiError("fi_enable", rc));
  size_t len = 256;
  address_.resize(len);
  rc = fi_getname(&ep_->fid, address_.data(), &len);
  if (rc == -FI_ETOOSMALL) {
    address_.resize(len);
    rc = fi_getname(&ep_->fid, address_.data(), &len);
  }
  if (rc)
    return fail(fiError("fi_getname", rc));
  address_.resize(len);
  injectSize_ = info_->tx_attr->inject_size;
  rma_ = (info_->caps & FI_RMA) != 0;
  // Without FI_MR_VIRT_ADDR (tcp) a remote address is an offset into the
  // registration; with it (shm), the virtual address itself.
  virtAddr_ = (info_->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
  iovLimit_ = info_->tx_attr->iov_limit;

  recv_.resize(recvSlots);
  for (uint32_t i = 0; i < recvSlots; ++i) {
    recv_[i].ctx.kind = OpContext::Recv;
    recv_[i].ctx.index = i;
    recv_[i].buf.reset(new uint8_t[recvSize]);
    recv_[i].size = recvSize;
    long prc = postRecv(i);
    if (prc == -FI_EAGAIN)
      repost_.push_back(i);
    else if (prc)
      return fail(fiError("fi_recv", prc));
  }
  send_.resize(kSendSlots);
  for (uint32_t i = 0; i < kSendSlots; ++i) {
    send_[i].ctx.kind = OpContext::Send;
    send_[i].ctx.index = i;
  }
  return true;
}

Endpoint::~Endpoint() {
  // Close in reverse order of creation; the endpoint first so that no
  // completion can still target our buffers.
  if (ep_)
    fi_close(&ep_->fid);
  for (Exposed &e : exposed_) // before the domain, which refuses to close
    if (e.mr)
      fi_close(&e.mr->fid); // while registrations exist
  if (av_)
    fi_close(&av_->fid);
  if (cq_)
    fi_close(&cq_->fid);
  if (domain_)
    fi_close(&domain_->fid);
  if (fabric_)
    fi_close(&fabric_->fid);
  if (info_)
    fi_freeinfo(info_);
}

std::string Endpoint::addressText(const std::vector<uint8_t> &raw) const {
  char buf[256];
  size_t len = sizeof buf;
  fi_av_straddr(av_, raw.data(), buf, &len);
  buf[sizeof buf - 1] = 0;
  return buf;
}

bool Endpoint::insertPeer(const std::vector<uint8_t> &raw, fi_addr_t *out,
                          std::string *error) {
  int n = fi_av_insert(av_, raw.data(), 1, out, 0, nullptr);
  if (n != 1) {
    if (error)
      *error = fiError("fi_av_insert", n < 0 ? n : -FI_EADDRNOTAVAIL) +
               " for peer address " + addressText(raw);
    return false;
  }
  return true;
}

void Endpoint::removePeer(fi_addr_t addr) {
  if (addr != FI_ADDR_UNSPEC && addr != FI_ADDR_NOTAVAIL)
    fi_av_remove(av_, &addr, 1, 0);
}

long Endpoint::postRecv(uint32_t index) {
  RecvSlot &s = recv_[index];
  long rc =
      fi_recv(ep_, s.buf.get(), s.size, nullptr, FI_ADDR_UNSPEC, &s.ctx.fi);
  if (rc == 0)
    s.posted = true;
  return rc;
}

void Endpoint::repostPending() {
  for (size_t i = 0; i < repost_.size();) {
    if (postRecv(repost_[i]) == 0) {
      repost_[i] = repost_.back();
      repost_.pop_back();
    } else {
      ++i; // still -FI_EAGAIN (or worse): try on the next progress call
    }
  }
}

int Endpoint::progress(const FrameHandler &onFrame) {
  if (!repost_.empty())
    repostPending();
  fi_cq_msg_entry entries[16];
  ssize_t n = fi_cq_read(cq_, entries, 16);
  if (n == -FI_EAGAIN)
    return 0;
  if (n == -FI_EAVAIL) {
    fi_cq_err_entry err{};
    if (fi_cq_readerr(cq_, &err, 0) < 0)
      return 0;
    lastCqErrno_ = -static_cast<int>(err.err);
    char buf[256];
    const char *detail =
        fi_cq_strerror(cq_, err.prov_errno, err.err_data, buf, sizeof buf);
    lastCqError_ = fiError("completion", lastCqErrno_) +
                   (detail ? std::string(" [") + detail + "]" : "");
    auto *ctx = static_cast<OpContext *>(err.op_context);
    if (!ctx || ctx->kind == OpContext::Send)
      ++sendErrors_; // no context: a failed inject
    if (ctx && ctx->kind == OpContext::Send) {
      send_[ctx->index].busy = false;
      send_[ctx->index].error = lastCqErrno_;
    } else if (ctx && ctx->kind == OpContext::Recv) {
      recv_[ctx->index].posted = false;
      // A failed receive (e.g. truncation) drops that frame; keep the
      // buffer in service.
      if (postRecv(ctx->index) == -FI_EAGAIN)
        repost_.push_back(ctx->index);
    }
    return 1;
  }
  if (n < 0)
    return static_cast<int>(n);
  for (ssize_t i = 0; i < n; ++i) {
    auto *ctx = static_cast<OpContext *>(entries[i].op_context);
    if (!ctx)
      continue;
    if (ctx->kind == OpContext::Send) {
      send_[ctx->index].busy = false;
      send_[ctx->index].error = 0;
      continue;
    }
    RecvSlot &s = recv_[ctx->index];
    s.posted = false;
    size_t len = entries[i].len;
    if (len >= sizeof(FrameHeader)) {
      FrameHeader h;
      std::memcpy(&h, s.buf.get(), sizeof h);
      if (h.magic == kFrameMagic)
        onFrame(h, s.buf.get() + sizeof h, len - sizeof h);
    }
    long rc = postRecv(ctx->index);
    if (rc == -FI_EAGAIN)
      repost_.push_back(ctx->index);
  }
  return static_cast<int>(n);
}

long Endpoint::inject(fi_addr_t dest, const void *buf, size_t len) {
  return fi_inject(ep_, buf, len, dest);
}

SendSlot *Endpoint::freeSlot() {
  for (SendSlot &s : send_)
    if (!s.busy)
      return &s;
  return nullptr;
}

long Endpoint::sendCopy(fi_addr_t dest, SendSlot *slot, size_t len) {
  long rc = fi_send(ep_, slot->copy.data(), len, nullptr, dest, &slot->ctx.fi);
  if (rc == 0) {
    slot->busy = true;
    slot->error = 0;
  }
  return rc;
}

long Endpoint::sendIov(fi_addr_t dest, SendSlot *slot, const struct iovec *iov,
                       size_t count) {
  long rc = fi_sendv(ep_, iov, nullptr, count, dest, &slot->ctx.fi);
  if (rc == 0) {
    slot->busy = true;
    slot->error = 0;
  }
  return rc;
}

uint64_t Endpoint::unusedKey() const {
  std::random_device random;
  for (;;) {
    uint64_t key = uint64_t(random()) << 32 | random();
    bool taken = key == 0;
    for (const Exposed &e : exposed_)
      taken |= e.key == key;
    if (!taken)
      return key;
  }
}

long Endpoint::exposeForWrite(void *buf, size_t len, uint64_t *addr,
                              uint64_t *key) {
  if (!rma_ && !privateExposures_)
    return -FI_ENOSYS;
  auto begin = reinterpret_cast<uintptr_t>(buf), end = begin + len;
  if (len == 0 || end < begin)
    return -FI_EINVAL;
  for (size_t i = 0; i < exposed_.size(); ++i)
    if (exposed_[i].begin <= begin && end <= exposed_[i].end) {
      Exposed hit = exposed_[i]; // most recently used goes last
      exposed_.erase(exposed_.begin() + long(i));
      ++hit.uses;
      exposed_.push_back(hit);
      *addr = virtAddr_ && !privateExposures_ ? begin : begin - hit.begin;
      *key = hit.key;
      return 0;
    }
  // Exactly the bytes asked for: the peer's writes are checked against the
  // registration (tcp, and shm without CMA), so a byte more would be a
  // byte of this process the peer may overwrite.
  if (privateExposures_) {
    // Only this side's own table: the sealed writes that target it are
    // opened and placed by the connection
    // (docs/transport-internals/connections.md, "Sealing").
    *key = unusedKey();
    *addr = 0;
    exposed_.push_back({begin, end, nullptr, *key, 1});
    dropUnused();
    return 0;
  }
  fid_mr *mr = nullptr;
  // Providers that choose keys ignore the requested one; shm needs it
  // unique within the domain. Random: a key says nothing about others.
  long rc = fi_mr_reg(domain_, buf, len, FI_REMOTE_WRITE, 0, unusedKey(), 0,
                      &mr, nullptr);
  if (rc)
    return rc;
  *key = fi_mr_key(mr);
  *addr = virtAddr_ ? begin : 0;
  exposed_.push_back({begin, end, mr, *key, 1});
  dropUnused();
  return 0;
}

void Endpoint::release(uint64_t key) {
  for (Exposed &e : exposed_)
    if (e.key == key && e.uses > 0) {
      --e.uses;
      break;
    }
  dropUnused();
}

void Endpoint::dropUnused() {
  size_t unused = 0;
  for (const Exposed &e : exposed_)
    unused += e.uses == 0;
  for (size_t i = 0; i < exposed_.size() && unused > kExposedMax;) {
    if (exposed_[i].uses == 0) { // least recently used first
      if (exposed_[i].mr)
        fi_close(&exposed_[i].mr->fid);
      exposed_.erase(exposed_.begin() + long(i));
      --unused;
    } else {
      ++i;
    }
  }
}

void Endpoint::withdraw(void *buf, size_t len) {
  auto begin = reinterpret_cast<uintptr_t>(buf), end = begin + len;
  for (size_t i = 0; i < exposed_.size();) {
    if (exposed_[i].begin < end && begin < exposed_[i].end) {
      if (exposed_[i].mr)
        fi_close(&exposed_[i].mr->fid);
      exposed_.erase(exposed_.begin() + long(i));
    } else {
      ++i;
    }
  }
}

void Endpoint::exposeOnlyPrivately() {
  for (Exposed &e : exposed_)
    if (e.mr)
      fi_close(&e.mr->fid);
  exposed_.clear();
  privateExposures_ = true;
}

std::vector<Endpoint::ExposedRange> Endpoint::exposedRanges() const {
  std::vector<ExposedRange> out;
  for (const Exposed &e : exposed_)
    out.push_back({e.key, reinterpret_cast<uint8_t *>(e.begin),
                   uint64_t(e.end - e.begin)});
  return out;
}

long Endpoint::write(fi_addr_t dest, SendSlot *slot, const void *buf,
                     size_t len, uint64_t addr, uint64_t key) {
  long rc = fi_write(ep_, buf, len, nullptr, dest, addr, key, &slot->ctx.fi);
  if (rc == 0) {
    slot->busy = true;
    slot->error = 0;
  }
  return rc;
}

bool Endpoint::anySendBusy() const {
  for (const SendSlot &s : send_)
    if (s.busy)
      return true;
  return false;
}

} // namespace rc::transport::detail
