// SinkTaskContext: what a SinkTask may ask of the worker that runs it (Kafka Connect's
// SinkTaskContext). The worker passes it to SinkTask::initialize() before start().
//
// Thread-safety: call it from the task's own thread (inside start/open/put/flush/preCommit/close),
// except requestCommit(), which may be called from any thread.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <set>
#include <vector>

#include "ksink/config.h"
#include "ksink/errant_record_reporter.h"
#include "ksink/topic_partition.h"

namespace ksink {

class SinkTaskContext {
 public:
  virtual ~SinkTaskContext() = default;

  // The partitions currently assigned to this task (empty before the first assignment).
  virtual std::set<TopicPartition> assignment() const = 0;

  // Rewind (or fast-forward) consumption: the next records delivered for `tp` start at `offset`.
  // Applied before the next fetch (inside open(): before the first fetch). Nothing is committed by
  // the call itself. A partition that is not assigned is ignored with a warning (Connect kills the
  // task there; see the README).
  virtual void offset(const TopicPartition& tp, int64_t offset) = 0;
  virtual void offset(const OffsetMap& offsets) = 0;

  // The longest the worker waits before calling put() again after a RetriableError (one-shot).
  virtual void timeout(std::chrono::milliseconds timeout) = 0;

  // Stop / restart fetching from these partitions. Pauses survive rebalances for partitions that
  // stay assigned. Unassigned partitions are ignored with a warning.
  virtual void pause(const std::vector<TopicPartition>& partitions) = 0;
  virtual void resume(const std::vector<TopicPartition>& partitions) = 0;

  // Ask for a commit (preCommit + offset commit) as soon as the current put() returns.
  virtual void requestCommit() = 0;

  // nullptr when neither a dead-letter queue nor error logging is configured.
  virtual ErrantRecordReporter* errantRecordReporter() = 0;

  // The configuration the task was started with.
  virtual const Config& config() const = 0;

  // A per-record conversion step (`convert`: a converter call, RecordMapper::map) just threw
  // RetriableError (`failure`): runs it again under errors.retry.timeout (0, the default: no retry;
  // -1: no limit) with a backoff starting at 300 ms, doubling, capped by errors.retry.delay.max.ms,
  // counting each retry in the total-retries metric. Returns once a run succeeds. When the time is
  // up, rethrows the last failure: the record is then a bad record (reportBadRecord /
  // errantRecordReporter(), which applies errors.tolerance). When the task is stopping it throws a
  // ConversionInterrupted (a RetriableError) at once, which is no fault of the record: RecordMapper
  // lets it leave put(), so the batch is not committed. RecordMapper::map(records, context) does
  // all this for the sinks built on it. The default (a context without a worker) retries nothing:
  // it rethrows `failure`.
  virtual void retryConversion(std::exception_ptr failure, const std::function<void()>& convert) {
    (void)convert;
    std::rethrow_exception(failure);
  }
};

}  // namespace ksink
