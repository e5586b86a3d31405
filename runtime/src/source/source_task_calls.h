// SourceTaskCalls: what a source task is owed once its records are through — commitRecord() for
// each, with where Kafka put it (none: not written), then commit() when its offsets were
// committed — made by whichever thread committed, in the order of the commits, and never under the
// task's worker lock: a task may take that lock in them (reading its OffsetStorageReader), so a
// thread that held it while waiting for its turn would deadlock with the one making calls. What
// the task's code throws is logged, not passed on (Connect's rule).
//
// Thread-safety: any thread. A turn is taken where the commit happened, under the worker's lock
// (so the turns follow the commits); make() without that lock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ksink/record_metadata.h"
#include "source_task_driver.h"

namespace ksink {

class SourceTaskCalls {
 public:
  // One commit's (or abort's) calls.
  struct Due {
    std::vector<std::pair<uint64_t, std::optional<RecordMetadata>>> records;  // driver ids
    bool commit = false;
    bool empty() const { return records.empty() && !commit; }
  };

  SourceTaskCalls(detail::SourceTaskDriver& task, std::string name)
      : task_(task), name_(std::move(name)) {}

  uint64_t takeTurn() { return next_turn_++; }
  // Waits for `turn`, then makes `due`'s calls.
  void make(uint64_t turn, const std::vector<const Due*>& due);
  // For one thread alone: the calls now.
  void make(const Due& due) { make(takeTurn(), {&due}); }

 private:
  detail::SourceTaskDriver& task_;
  const std::string name_;
  std::atomic<uint64_t> next_turn_{0};
  std::mutex mutex_;
  std::condition_variable turn_changed_;
  uint64_t turn_ = 0;  // under mutex_
};

}  // namespace ksink
