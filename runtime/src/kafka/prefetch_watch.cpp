#include "prefetch_watch.h"

#include <algorithm>

namespace ksink {

PrefetchWatch::PrefetchWatch(int64_t max_messages, int64_t max_bytes)
    : max_messages_(std::max<int64_t>(1, max_messages)),
      max_bytes_(std::max<int64_t>(1, max_bytes)) {}

bool PrefetchWatch::polled(size_t bytes) {
  // A running mean that follows a change of record size within a few hundred records.
  const double b = static_cast<double>(bytes);
  mean_bytes_ = mean_bytes_ == 0 ? b : mean_bytes_ + (b - mean_bytes_) / 256;
  flowing_ = true;
  if (++since_look_ < kLookEvery) return false;
  since_look_ = 0;
  return true;
}

double PrefetchWatch::fill(int64_t queued) const {
  const double n = static_cast<double>(queued);
  return std::max(n / static_cast<double>(max_messages_),
                  n * mean_bytes_ / static_cast<double>(max_bytes_));
}

bool PrefetchWatch::observe(int64_t queued) {
  if (fill(queued) >= 0.5) {
    armed_ = true;
    return false;
  }
  if (!armed_) return false;
  armed_ = false;
  flowing_ = false;
  return true;
}

bool PrefetchWatch::empty(std::chrono::steady_clock::time_point now) {
  since_look_ = 0;
  if (armed_) {  // drained between two looks
    armed_ = false;
    flowing_ = false;
    return true;
  }
  if (!flowing_ || now - last_empty_wake_ < kEmptyWakeGap) return false;
  flowing_ = false;
  last_empty_wake_ = now;
  return true;
}

}  // namespace ksink
