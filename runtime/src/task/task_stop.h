// TaskStop: a task's graceful stop as every task kind keeps it (WorkerSinkTask, WorkerSourceTask,
// ExactlyOnceSourceTask, TaskGroup) — asked for with a deadline, of which the first asked
// stays, and cancelled when that deadline ran out (the final commit is then skipped; the
// teardown still runs). A task's parts read it instead of the task's own flags, and a pause of the
// task's own (between tries) waits on it, so that a stop ends the pause.
//
// Thread-safety: any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "clock.h"

namespace ksink {

class TaskStop {
 public:
  // Asks for the stop by `deadline`; a deadline asked for before stays.
  void request(Clock::time_point deadline) {
    int64_t none = 0;
    deadline_ns_.compare_exchange_strong(none, deadline.time_since_epoch().count());
    {
      std::lock_guard lock(mutex_);
      requested_ = true;
    }
    changed_.notify_all();
  }
  bool requested() const { return requested_; }
  // The deadline asked for; nullopt before any.
  std::optional<Clock::time_point> deadline() const {
    const int64_t ns = deadline_ns_.load();
    if (ns == 0) return std::nullopt;
    return Clock::time_point{Clock::duration(ns)};
  }
  // The flag itself, for a wait that polls it.
  const std::atomic<bool>& requestedFlag() const { return requested_; }

  // Waits on `clock` until `until` or a stop, whichever comes first; returns whether a stop was
  // asked for.
  bool sleepUntil(const Clock& clock, Clock::time_point until) {
    std::unique_lock lock(mutex_);
    return clock.sleepUntil(lock, changed_, until, [this] { return requested_.load(); });
  }

  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  std::atomic<bool> requested_{false};
  std::atomic<bool> cancelled_{false};
  std::atomic<int64_t> deadline_ns_{0};  // of the steady clock; 0 until asked
  std::mutex mutex_;                     // with changed_: sleepUntil() wakes on a request
  std::condition_variable changed_;
};

}  // namespace ksink
