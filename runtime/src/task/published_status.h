// PublishedStatus: what /status and /metrics read of a task — its state, its last error and its
// counters as the task last published them — behind a lock of its own, so a status read never
// waits for the task's work. Any thread.
#pragma once

#include <exception>
#include <mutex>
#include <string>

#include "ksink/connector_status.h"
#include "ksink/detail/describe_failure.h"

namespace ksink {

class PublishedStatus {
 public:
  // Copies `counters`; with a state, sets it (and the error, if any).
  void publish(const TaskCounters& counters, const char* state = nullptr,
               const std::string& error = {}) {
    std::lock_guard lock(mutex_);
    counters_ = counters;
    if (state) state_ = state;
    if (!error.empty()) last_error_ = error;
  }
  // Sets the state (and the error, if any), keeping the counters.
  void setState(const char* state, const std::string& error = {}) {
    std::lock_guard lock(mutex_);
    state_ = state;
    if (!error.empty()) last_error_ = error;
  }
  // A passing condition (a poll() being retried): shown as the last error until cleared.
  void showError(std::string error) {
    std::lock_guard lock(mutex_);
    last_error_ = std::move(error);
  }
  void clearError() {
    std::lock_guard lock(mutex_);
    last_error_.clear();
  }
  TaskStatus status(int id) const {
    std::lock_guard lock(mutex_);
    TaskStatus out;
    out.id = id;
    out.state = state_;
    out.last_error = last_error_;
    out.counters = counters_;
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::string state_ = "UNASSIGNED";
  std::string last_error_;
  TaskCounters counters_;
};

}  // namespace ksink
