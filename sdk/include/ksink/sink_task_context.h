// SinkTaskContext: what a SinkTask may ask of the worker that runs it (Kafka Connect's
// SinkTaskContext). The worker passes it to SinkTask::initialize() before start().
//
// Thread-safety: call it from the task's own thread (inside start/open/put/flush/preCommit/close),
// except requestCommit(), which may be called from any thread.
#pragma once

#include <chrono>
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
};

}  // namespace ksink
