// Polling helpers for tests and benchmarks that watch another process make progress (rows in a
// table, offsets in a group): wait for a condition, or time a run from its first visible progress
// to its last.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>

namespace ksink::it {

// True as soon as `condition` holds; false if it still does not after `timeout`.
inline bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
                      std::chrono::milliseconds every = std::chrono::milliseconds(100)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

struct ProgressTiming {
  double seconds = 0;   // from the first progress seen to reaching the target
  int64_t units = 0;    // the progress made in that time
  double to_first = 0;  // from the call to the first progress seen (launch to first row)
};

// Polls `progress` until it reaches `target` and times it from the first non-zero value, so
// start-up (process launch, group join) is not counted. Throws std::runtime_error with
// `describe_failure()` when `alive` turns false or `timeout` passes first.
inline ProgressTiming timeProgress(
    const std::function<int64_t()>& progress, int64_t target, const std::function<bool()>& alive,
    const std::function<std::string()>& describe_failure, std::chrono::milliseconds timeout,
    std::chrono::milliseconds every = std::chrono::milliseconds(10)) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  int64_t first_units = 0, done = 0;
  Clock::time_point first{};
  while ((done = progress()) < target) {
    if (!alive() || Clock::now() > deadline) throw std::runtime_error(describe_failure());
    if (done > 0 && first_units == 0) {
      first_units = done;
      first = Clock::now();
    }
    std::this_thread::sleep_for(every);
  }
  const auto last = Clock::now();
  if (first_units == 0) first = last;  // all of it arrived before the first look
  return {std::chrono::duration<double>(last - first).count(), target - first_units,
          std::chrono::duration<double>(first - start).count()};
}

}  // namespace ksink::it
