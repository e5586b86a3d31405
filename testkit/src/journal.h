// Journal: what a probe saw the worker call on the task under test, in order — each call's
// arguments, its outcome and when it began and ended — for the scenarios to wait on and check.
// The sink probe journals ProbeEvents, the source probe SourceEvents; each Event has `call`,
// `task`, `outcome`, `error`, `began` and `ended`.
//
// Thread-safety: shared by the tasks of every worker of a run and read by the test thread: all
// under its mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ksink/retriable_error.h"

namespace ksink::testkit {

using Clock = std::chrono::steady_clock;

enum class Outcome { kRunning, kReturned, kRetriable, kFailed };

template <typename Event>
class Journal {
 public:
  // Numbers the tasks of every worker of a run, in the order made.
  int nextTask() { return next_task_.fetch_add(1); }
  // How many tasks were numbered so far (the next worker's first task gets this number).
  int tasks() const { return next_task_.load(); }

  size_t begin(Event event) {
    std::lock_guard lock(mutex_);
    event.began = Clock::now();
    events_.push_back(std::move(event));
    changed_.notify_all();
    return events_.size() - 1;
  }
  // Ends call `index` with `outcome`; `finish` may add what the call returned.
  void end(size_t index, Outcome outcome, std::string error = {},
           const std::function<void(Event&)>& finish = {}) {
    std::lock_guard lock(mutex_);
    auto& e = events_[index];
    e.outcome = outcome;
    e.ended = Clock::now();
    if (!error.empty()) e.error = std::move(error);
    if (finish) finish(e);
    changed_.notify_all();
  }
  std::vector<Event> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  // Waits until `condition(events())` holds; false when `timeout` passed first.
  bool waitUntil(const std::function<bool(const std::vector<Event>&)>& condition,
                 std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return condition(events_); });
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<Event> events_;
  std::atomic<int> next_task_{0};
};

// Runs `body` as the journaled call `event`: its outcome recorded when it ends (a RetriableError,
// any other exception, or a normal return, then `finish`), what it threw rethrown.
template <typename Event, typename Body>
void journaled(Journal<Event>& journal, Event event, Body&& body,
               const std::type_identity_t<std::function<void(Event&)>>& finish = {}) {
  const size_t i = journal.begin(std::move(event));
  try {
    body();
  } catch (const RetriableError& e) {
    journal.end(i, Outcome::kRetriable, e.what());
    throw;
  } catch (const std::exception& e) {
    journal.end(i, Outcome::kFailed, e.what());
    throw;
  } catch (...) {
    journal.end(i, Outcome::kFailed, "non-standard exception");
    throw;
  }
  journal.end(i, Outcome::kReturned, {}, finish);
}

}  // namespace ksink::testkit
