// StageRetry: the retry half of Kafka Connect's RetryWithToleranceOperator, for the per-record
// conversion steps a sink runs (a converter call, RecordMapper::map). The worker owns one per task
// and sinks reach it through SinkTaskContext::retryConversion().
//
// A step that threw RetriableError is run again after retryBackoff() (never waiting past the
// deadline) until it succeeds or errors.retry.timeout ms have passed since the first failure
// (0: no retry, Connect's default; -1: no limit). Then the last RetriableError propagates and the
// caller handles the record as a bad one, per errors.tolerance. Any other exception propagates at
// once: a ConversionError is a bad record, never retried. Every retry counts in `retries`
// (Connect's total-retries).
//
// Time, and the waits between retries, come from the Clock given (the task's).
//
// Thread-safety: run() on the task's thread only; cancel() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>

#include "clock.h"
#include "ksink/conversion_interrupted.h"

namespace ksink {

class StageRetry {
 public:
  // What run() throws when cancel() ends the retries (public, for the sinks: see its header).
  using Interrupted = ConversionInterrupted;

  StageRetry(std::chrono::milliseconds timeout, std::chrono::milliseconds delay_max,
             std::atomic<uint64_t>& retries, const Clock& clock = Clock::steady());

  // `failure`: what `step` threw on its first run (a RetriableError). Returns once a run of
  // `step` returns; else throws as described above.
  void run(std::exception_ptr failure, const std::function<void()>& step);

  // The task is stopping: a wait in progress ends, no further retry starts (run() throws
  // Interrupted). Permanent.
  void cancel();

 private:
  // Waits `delay`; false when cancel() came first.
  bool sleep(std::chrono::milliseconds delay);

  const std::chrono::milliseconds timeout_;
  const std::chrono::milliseconds delay_max_;
  std::atomic<uint64_t>& retries_;
  const Clock& clock_;  // the deadline and the waits
  std::mutex mutex_;
  std::condition_variable cancelled_changed_;
  bool cancelled_ = false;
};

}  // namespace ksink
