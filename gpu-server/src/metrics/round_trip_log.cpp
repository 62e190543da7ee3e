#include "rc/server/round_trip_log.h"

#include <algorithm>
#include <vector>

namespace rc::server {

void RoundTripLog::add(const RoundTripSample &s) {
  std::lock_guard<std::mutex> lock(mutex_);
  ring_[added_ % kCapacity] = s;
  ++added_;
}

namespace {
// The q-quantile (nearest rank) of one field over the samples.
uint64_t quantile(const std::vector<RoundTripSample> &samples,
                  uint64_t RoundTripSample::*field, double q) {
  std::vector<uint64_t> v;
  v.reserve(samples.size());
  for (const RoundTripSample &s : samples)
    v.push_back(s.*field);
  size_t k = std::min(v.size() - 1, size_t(q * double(v.size())));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}
} // namespace

RoundTripLog::Summary RoundTripLog::summary() const {
  std::vector<RoundTripSample> samples;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    samples.assign(ring_.begin(), ring_.begin() + std::min(added_, kCapacity));
  }
  Summary out;
  out.count = samples.size();
  if (samples.empty())
    return out;
  for (auto field : {&RoundTripSample::gapNs, &RoundTripSample::replayNs,
                     &RoundTripSample::readbackNs, &RoundTripSample::uploadNs,
                     &RoundTripSample::launchNs, &RoundTripSample::syncNs,
                     &RoundTripSample::buildNs, &RoundTripSample::sendNs}) {
    out.median.*field = quantile(samples, field, 0.5);
    out.p90.*field = quantile(samples, field, 0.9);
  }
  return out;
}

} // namespace rc::server
