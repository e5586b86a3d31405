// OffsetStore: where a TransactionalSinkTask keeps, in the destination, the next offset to read
// per (connector, topic, partition) — table `ksink_offsets` in both reference sinks. A sink
// implements the two calls with its own SQL and driver; the loop that runs the compare-and-set
// over a batch's partitions and decides "fenced" is TransactionalSinkTask's (storeOffsets()), so
// it exists once.
//
// Thread-safety: called only from the owning task's thread, inside its transaction for
// compareAndSet().
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ksink/sink_task.h"
#include "ksink/topic_partition.h"

namespace ksink {

class OffsetStore {
 public:
  // One partition's move: from `expected` (the stored value the task last read or wrote;
  // nullopt = no row yet) to `next_offset` (last written offset + 1).
  struct Update {
    TopicPartition partition;
    std::optional<int64_t> expected;
    int64_t next_offset = 0;
  };

  virtual ~OffsetStore() = default;

  // The stored next offsets of `partitions`; partitions without a row are left out. Throws
  // RetriableError for a transient failure, anything else for a fatal one.
  virtual OffsetMap load(const std::vector<TopicPartition>& partitions) = 0;

  // Inside the open transaction: stores `update.next_offset` if the stored value is still
  // `update.expected` (expected nullopt: inserts the row only if it is still absent). Returns
  // false, changing nothing, when the stored value is another one: another task wrote the
  // partition since, and the caller is fenced.
  virtual bool compareAndSet(const Update& update) = 0;
};

}  // namespace ksink
