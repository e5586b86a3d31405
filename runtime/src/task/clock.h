// Clock: where the runtime takes time from — WorkerSinkTask's loop and commit cycle, the put()
// redelivery backoff, StageRetry's conversion retries, the graceful-stop deadline — so a test
// decides timing, not the machine. Clock::steady() is the process's steady clock with real waits
// (what Worker gives its tasks); a test that drives a task itself passes its own
// (tests/support/manual_clock.h), whose time moves only when told to. Broker request timeouts
// (seek, watermarks, the committed-offset lookup's retry) stay in real time.
//
// Waiting goes through the clock too, in two forms:
//  - timeoutUntil(deadline): the timeout for a call that blocks until `deadline` at the latest
//    (librdkafka's poll). The call may return earlier; a caller that needs `deadline` to have
//    passed checks now() again.
//  - sleepUntil(): waits on a condition variable until `deadline` or until `done()`; a clock that
//    is not the real one decides when `deadline` comes. sleepFor() is a pause made of it.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace ksink {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;

  virtual ~Clock() = default;

  virtual time_point now() const = 0;

  // Whole milliseconds until `deadline`, rounded up (a wait truncated wakes just before
  // `deadline`, and a loop would then spin with zero-timeout calls until it comes); never negative.
  virtual std::chrono::milliseconds timeoutUntil(time_point deadline) const {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::ceil<std::chrono::milliseconds>(deadline - now()));
  }

  // With `lock` held on the mutex `changed` is used with: waits until `done()` or `deadline`.
  // Returns done(). Whoever makes done() true notifies `changed`.
  virtual bool sleepUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& changed,
                          time_point deadline, const std::function<bool()>& done) const {
    return changed.wait_for(lock, deadline - now(), done);
  }

  // Waits `pause` on this clock (a pause between tries: nothing ends it early).
  void sleepFor(duration pause) const {
    std::mutex mutex;
    std::condition_variable never;
    std::unique_lock lock(mutex);
    sleepUntil(lock, never, now() + pause, [] { return false; });
  }

  // The steady clock, real waits. Lives as long as the process.
  static const Clock& steady();
};

class SteadyClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
};

inline const Clock& Clock::steady() {
  static const SteadyClock clock;
  return clock;
}

}  // namespace ksink
