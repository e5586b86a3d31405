// TaskProgress: whether a task that has work moves on, for the stall /status and /metrics report
// (ksink's; Connect shows such a task RUNNING): a sink with records beyond its committed offsets
// and no commit, a source whose poll() has not returned. The task's thread marks when it began to
// wait for progress and when it moved on; a status read on any thread asks how long the wait has
// lasted once it passed `stall_after` (task.stall.intervals × offset.flush.interval.ms).
//
// Thread-safety: any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include "clock.h"

namespace ksink {

class TaskProgress {
 public:
  TaskProgress(const Clock& clock, std::chrono::milliseconds stall_after)
      : clock_(clock), stall_after_(stall_after) {}

  // A wait for progress begins now (again, if one was running); `what` says what does not move
  // (a literal: it is kept).
  void beginWait(const char* what) {
    what_ = what;
    since_ns_ = clock_.now().time_since_epoch().count();
  }
  // A wait begins now unless one is running.
  void continueWait(const char* what) {
    if (since_ns_.load() == kNotWaiting) beginWait(what);
  }
  // Moved on, or nothing to do: no wait.
  void endWait() { since_ns_ = kNotWaiting; }

  // What does not move, and for how long, once the wait passed stall_after; nullopt otherwise.
  struct Stall {
    const char* what;
    std::chrono::milliseconds for_;
  };
  std::optional<Stall> stall() const {
    const int64_t since = since_ns_.load();
    if (since == kNotWaiting) return std::nullopt;
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        clock_.now() - Clock::time_point{Clock::duration(since)});
    if (waited < stall_after_) return std::nullopt;
    return Stall{what_.load(), waited};
  }
  std::chrono::milliseconds stallAfter() const { return stall_after_; }

 private:
  static constexpr int64_t kNotWaiting = INT64_MIN;
  const Clock& clock_;
  const std::chrono::milliseconds stall_after_;
  std::atomic<int64_t> since_ns_{kNotWaiting};
  std::atomic<const char*> what_{""};
};

}  // namespace ksink
