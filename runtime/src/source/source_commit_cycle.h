// SourceCommitCycle: a source task's offset commits (Kafka Connect's
// WorkerSourceTask.commitOffsets with its OffsetStorageWriter), on the task's thread.
//
// Committable offsets are offered as records are acknowledged (SubmittedRecords), newest winning
// per partition. Every offset.flush.interval.ms, tick() writes what was offered since the last
// commit to the store; the write must be durable within offset.flush.timeout.ms. A write that
// fails or runs out of time is abandoned (a late answer is ignored) and its entries go back to the
// offered ones, under any newer offer, for the next cycle. A cycle with nothing to write counts as
// a success. After each success the task's commit() is due: takeCommitted() says so once.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "clock.h"
#include "ksink/connector_status.h"
#include "offset_backing_store.h"
#include "submitted_records.h"

namespace ksink {

class SourceCommitCycle {
 public:
  SourceCommitCycle(OffsetBackingStore& store, const Clock& clock,
                    std::chrono::milliseconds interval, std::chrono::milliseconds timeout);

  // Offsets that may now be committed (newest wins over what was offered before).
  void offer(const OffsetEntries& entries);
  // Finishes a write that completed or ran out of time; starts the next when due (or `force`) and
  // none is in flight.
  void tick(bool force = false);
  // The final commit: offers nothing new, starts a write of what is pending and waits (serving
  // the store) until it completes or `deadline`. True when everything offered is durable.
  bool commitNow(Clock::time_point deadline);
  // True once after each successful cycle: the task's commit() is due.
  bool takeCommitted();
  // Offered entries not yet durable (pending or in flight).
  size_t uncommitted() const;
  const CommitCounters& counters() const { return counters_; }

 private:
  void start();
  void finish(std::optional<std::string> error);  // by value: it may come from in_flight_

  struct Flight {
    uint64_t id;
    OffsetEntries entries;
    Clock::time_point deadline;
    bool done = false;
    std::optional<std::string> error;
  };

  OffsetBackingStore& store_;
  const Clock& clock_;
  const std::chrono::milliseconds interval_;
  const std::chrono::milliseconds timeout_;
  OffsetEntries pending_;
  std::optional<Flight> in_flight_;
  uint64_t next_flight_id_ = 0;
  Clock::time_point next_due_;
  bool committed_ = false;
  CommitCounters counters_;
};

}  // namespace ksink
