#include "sink_rewinds.h"

namespace ksink {

void SinkRewinds::request(const TopicPartition& tp, int64_t offset) {
  (collecting_ ? *collecting_ : pending_)[tp] = offset;
}

OffsetMap SinkRewinds::collectDuring(const std::function<void()>& open) {
  collecting_.emplace();
  try {
    open();
  } catch (...) {
    collecting_.reset();
    throw;
  }
  OffsetMap collected = std::move(*collecting_);
  collecting_.reset();
  return collected;
}

std::optional<int64_t> SinkRewinds::pendingFor(const TopicPartition& tp) const {
  const auto it = pending_.find(tp);
  return it == pending_.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

}  // namespace ksink
