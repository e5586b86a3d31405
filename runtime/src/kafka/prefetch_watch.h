// PrefetchWatch: decides when the consumer's prefetch has drained far enough that librdkafka's
// fetcher may be idle and needs a wake-up (see fetch_waker.h for why it does not wake itself).
//
// The fetcher stops once the queue reaches one of its two limits (messages, payload bytes). The
// watch estimates how full the queue is from its length and the mean size of the messages polled
// from it, arms once the queue was seen at least half full (the fetcher may stop soon), and asks
// for one wake-up when an armed queue falls below half: the fetcher then refills it in the time
// the other half takes to drain. A queue found empty while records were flowing asks for one at
// most every kEmptyWakeGap (an estimate that was off must not cost a second; a sink faster than
// the broker, which empties the queue all the time while the fetcher is busy anyway, must not
// send a request per batch). An idle topic asks for nothing.
//
// Pure logic, no librdkafka: the consumer feeds it what it polls and sees.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace ksink {

class PrefetchWatch {
 public:
  // The consumer's queued.min.messages and queued.max.messages.kbytes * 1024.
  PrefetchWatch(int64_t max_messages, int64_t max_bytes);

  // A message of `bytes` (key + value) was polled. Returns true when it is time to look at the
  // queue's length (every few messages: the look takes the queue's lock).
  bool polled(size_t bytes);
  // The queue holds `queued` messages now. Returns true when the fetcher should be woken.
  bool observe(int64_t queued);
  // A poll found the queue empty at `now`. Returns true when the fetcher should be woken.
  bool empty(std::chrono::steady_clock::time_point now);

  static constexpr int kLookEvery = 64;
  static constexpr std::chrono::milliseconds kEmptyWakeGap{100};

 private:
  double fill(int64_t queued) const;

  int64_t max_messages_;
  int64_t max_bytes_;
  double mean_bytes_ = 0;
  int since_look_ = 0;
  bool armed_ = false;
  bool flowing_ = false;  // messages polled since the last wake-up
  std::chrono::steady_clock::time_point last_empty_wake_{};
};

}  // namespace ksink
