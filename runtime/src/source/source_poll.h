// SourcePoll: a source task's poll() as both task kinds call it (WorkerSourceTask,
// ExactlyOnceSourceTask). While the connector is paused (TaskPause) poll() is not called. A
// RetriableError from poll() is logged, shown in /status while the task retries (the first poll
// that returns clears it), and the next poll waits kRetryBackoff (Connect retries poll() alike);
// any other exception passes. Each poll counts in Connect's source-task-metrics: poll_batch_count,
// the average and longest poll() time, source_record_poll_total. A poll() that has not returned
// for the task's stall time shows as a stall (TaskProgress).
//
// Thread-safety: the task's thread calls it; the counters are updated under the task's lock.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clock.h"
#include "ksink/connector_status.h"
#include "published_status.h"
#include "source_task_driver.h"
#include "task_pause.h"
#include "task_progress.h"

namespace ksink {

class SourcePoll {
 public:
  static constexpr std::chrono::milliseconds kRetryBackoff{100};
  // How long a source task's loop waits when there is nothing to do (poll() returned nothing).
  static constexpr std::chrono::milliseconds kIdleWait{10};

  // `status`: where a retry shows (the task stays RUNNING); `progress`: where a poll() that does
  // not return shows as a stall.
  SourcePoll(std::string task_name, const Clock& clock, std::mutex& mutex, SourceCounters& counters,
             PublishedStatus& status, const TaskPause& pause, TaskProgress& progress);

  // `poll` (the task's poll()) called, unless the task is paused (this waits `idle_wait`) or a
  // retry's backoff is still running (this waits up to `idle_wait` of it); nullopt when nothing
  // was polled.
  std::optional<std::vector<detail::PolledRecord>> operator()(
      const std::function<std::vector<detail::PolledRecord>()>& poll,
      std::chrono::milliseconds idle_wait);

 private:
  const std::string task_name_;
  const Clock& clock_;
  std::mutex& mutex_;
  SourceCounters& counters_;
  PublishedStatus& status_;
  const TaskPause& pause_;
  TaskProgress& progress_;
  Clock::time_point not_before_{};
  bool retrying_ = false;
};

}  // namespace ksink
