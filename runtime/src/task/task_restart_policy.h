// TaskRestartPolicy: when a failed task is restarted by itself (ksink's, off by default; Connect
// leaves every failed task to an operator): errors.restart.max.attempts restarts of a task within
// errors.restart.window.ms, the first errors.restart.backoff.ms after the failure was seen, each
// next one twice as late; past them the task stays FAILED until restarted by hand.
//
// Thread-safety: one thread (the Worker's run()).
#pragma once

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <optional>

#include "clock.h"

namespace ksink {

class TaskRestartPolicy {
 public:
  enum class Decision { kWait, kRestart, kGiveUp };

  TaskRestartPolicy(int max_attempts, std::chrono::milliseconds backoff,
                    std::chrono::milliseconds window)
      : max_attempts_(max_attempts), backoff_(backoff), window_(window) {}

  bool enabled() const { return max_attempts_ > 0; }

  // Task `id` is seen FAILED at `now`: whether to restart it now (the attempt is then counted), to
  // wait, or to leave it failed (decided once: kGiveUp is answered once per failure).
  Decision failed(int id, Clock::time_point now) {
    auto& t = tasks_[id];
    while (!t.restarts.empty() && now - t.restarts.front() >= window_) t.restarts.pop_front();
    if (!t.failed_since) t.failed_since = now;
    if (t.gave_up) return Decision::kWait;
    if (static_cast<int>(t.restarts.size()) >= max_attempts_) {
      t.gave_up = true;
      return Decision::kGiveUp;
    }
    const auto wait = backoff_ * (1LL << std::min<size_t>(t.restarts.size(), 20));
    if (now - *t.failed_since < wait) return Decision::kWait;
    t.restarts.push_back(now);
    t.failed_since.reset();
    return Decision::kRestart;
  }
  // Task `id` runs (again): a later failure is a new one.
  void running(int id) {
    if (auto it = tasks_.find(id); it != tasks_.end()) {
      it->second.failed_since.reset();
      it->second.gave_up = false;
    }
  }

 private:
  struct Task {
    std::deque<Clock::time_point> restarts;  // within the window
    std::optional<Clock::time_point> failed_since;
    bool gave_up = false;
  };
  const int max_attempts_;
  const std::chrono::milliseconds backoff_;
  const std::chrono::milliseconds window_;
  std::map<int, Task> tasks_;
};

}  // namespace ksink
