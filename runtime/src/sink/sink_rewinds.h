// SinkRewinds: the offsets a sink task asked to read its partitions from again
// (SinkTaskContext::offset()). One asked for while open() runs for newly assigned partitions is
// collected for the rebalance, which makes it a start offset (collectDuring()); any other is
// pending until the loop applies it (takePending()), before the next commit or put().
//
// Invariant: a rewind is pending only for a partition the task holds — the context asks only for
// assigned ones, and a revocation forgets them (forget()). Thread-safety: the task's thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "ksink/topic_partition.h"

namespace ksink {

class SinkRewinds {
 public:
  void request(const TopicPartition& tp, int64_t offset);
  // Runs `open` (the task's open()); returns the rewinds asked for while it ran, which are not
  // pending. Rethrows what `open` throws, collecting nothing more either way.
  OffsetMap collectDuring(const std::function<void()>& open);

  std::optional<int64_t> pendingFor(const TopicPartition& tp) const;
  OffsetMap takePending() { return std::exchange(pending_, {}); }
  bool hasPending() const { return !pending_.empty(); }
  void forget(const TopicPartition& tp) { pending_.erase(tp); }

 private:
  OffsetMap pending_;
  std::optional<OffsetMap> collecting_;  // set while open() runs inside the assign callback
};

}  // namespace ksink
