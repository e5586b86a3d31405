// ManualClock: a ksink::Clock whose time moves only when the test moves it (advance()), so what
// the worker does at a given time is decided by the test, not by the machine's speed.
//
// Waits on it: timeoutUntil() gives a blocking call the time left on this clock, spent in real
// time (a poll still gets its messages and rebalances), and a loop that waits keeps finding its
// deadline ahead until the test advances past it. sleepUntil() waits until the test advances to its
// deadline — or, for a clock made with Sleeps::kPassAtOnce, returns at once with the clock moved to
// the deadline, so code sleeping on the test's own thread runs through its waits without a second
// thread. Every wait is counted: after advance(), awaitWaits(waits() + 2) returns once the worker's
// loop has been through a whole iteration at the new time.
//
// Thread-safety: any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "clock.h"

namespace ksink::test {

class ManualClock final : public ksink::Clock {
 public:
  enum class Sleeps { kUntilAdvanced, kPassAtOnce };

  // Starts one hour after the steady clock's epoch (a zero time point means "unset" to some
  // callers).
  explicit ManualClock(Sleeps sleeps = Sleeps::kUntilAdvanced) : sleeps_(sleeps) {}

  time_point now() const override { return time_point(duration(now_ns_.load())); }

  void advance(std::chrono::milliseconds by) {
    now_ns_ += std::chrono::duration_cast<duration>(by).count();
  }

  std::chrono::milliseconds timeoutUntil(time_point deadline) const override {
    counted();
    return Clock::timeoutUntil(deadline);
  }

  bool sleepUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& changed,
                  time_point deadline, const std::function<bool()>& done) const override {
    counted();
    {
      std::lock_guard guard(mutex_);
      sleeps_made_.push_back(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now()));
    }
    if (sleeps_ == Sleeps::kPassAtOnce) {
      if (done()) return true;
      auto target = deadline.time_since_epoch().count();
      auto current = now_ns_.load();
      while (current < target && !now_ns_.compare_exchange_weak(current, target)) {
      }
      return done();
    }
    while (!done() && now() < deadline) changed.wait_for(lock, std::chrono::milliseconds(1));
    return done();
  }

  // How many waits (timeoutUntil() and sleepUntil() calls) began so far.
  uint64_t waits() const {
    std::lock_guard guard(mutex_);
    return waits_;
  }
  // Waits (in real time, at most `timeout`) until `count` waits began; false when they did not.
  bool awaitWaits(uint64_t count, std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return waits_changed_.wait_for(lock, timeout, [&] { return waits_ >= count; });
  }
  // The length of every sleepUntil() call, at the time it began, in order.
  std::vector<std::chrono::milliseconds> sleeps() const {
    std::lock_guard guard(mutex_);
    return sleeps_made_;
  }

 private:
  void counted() const {
    {
      std::lock_guard guard(mutex_);
      ++waits_;
    }
    waits_changed_.notify_all();
  }

  const Sleeps sleeps_;
  mutable std::atomic<int64_t> now_ns_{
      std::chrono::duration_cast<duration>(std::chrono::hours(1)).count()};
  mutable std::mutex mutex_;  // guards the three below
  mutable std::condition_variable waits_changed_;
  mutable uint64_t waits_ = 0;
  mutable std::vector<std::chrono::milliseconds> sleeps_made_;
};

}  // namespace ksink::test
