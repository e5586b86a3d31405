// WorkerBatchDelivery: the batch half of WorkerSinkTask — polls a batch (pollBatch), hands it to
// put() (deliver), and redelivers the same batch after a RetriableError: it pauses every assigned
// partition, keeps polling (parking what still arrives), and calls put() again once the backoff
// (retryBackoff(), or the task's context().timeout()) has passed, until put() returns or
// errors.retry.timeout runs out. Rewinds (rewindTo) drop the records they give back.
//
// Changes the fetched records, the ledger (delivered), the assignment's redelivery pause and the
// consumer's pauses. Thread-safety: the task's thread only.
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "fetched_records.h"
#include "kafka_consumer.h"
#include "offset_ledger.h"
#include "sink_rewinds.h"
#include "sink_task_scope.h"
#include "task_assignment.h"

namespace ksink {

class SinkRecordConversion;

class WorkerBatchDelivery {
 public:
  using time_point = SinkTaskScope::time_point;

  // `consumer`: the task's, made when it starts.
  WorkerBatchDelivery(const SinkTaskScope& scope, const std::shared_ptr<KafkaConsumer>& consumer,
                      TaskAssignment& assignment, FetchedRecords& fetched, SinkRewinds& rewinds,
                      OffsetLedger& ledger)
      : scope_(scope),
        consumer_(consumer),
        assignment_(assignment),
        fetched_(fetched),
        rewinds_(rewinds),
        ledger_(ledger) {}

  // The runtime's conversion before put(); none for a task that converts records itself.
  void convertWith(SinkRecordConversion* conversion) { conversion_ = conversion; }

  // Fills the batch: parked records first, then polls, waiting up to `deadline` for the first.
  void pollBatch(time_point deadline);
  // Applies pending rewinds, then put()s the batch (unless a redelivery is not due yet); only a
  // put() that returned moves the ledger's delivered offsets.
  void deliver();
  // Rewinds the task asked for since they were last applied.
  void applyRewinds();
  // Moves the ledger and the fetch positions back, dropping the records given back.
  void rewindTo(const OffsetMap& offsets);
  // Partitions were dropped from the batch: a redelivery left with nothing to redeliver ends.
  void resumeIfNothingToRedeliver();

  // The task's context().timeout(): the next redelivery's delay, and a bound on the next poll.
  void requestTimeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  // The timeout asked for since the last call, once.
  std::optional<std::chrono::milliseconds> takeRequestedTimeout() {
    return std::exchange(timeout_, std::nullopt);
  }

  bool pausedForRedelivery() const { return assignment_.redelivering(); }
  // When the batch is put() again; meaningful while pausedForRedelivery().
  time_point retryAt() const { return retry_at_; }

 private:
  void takeParked();
  void markDelivered();
  void pauseForRedelivery();
  void resumeAfterRedelivery();
  std::chrono::milliseconds retryDelay() const;

  const SinkTaskScope& scope_;
  const std::shared_ptr<KafkaConsumer>& consumer_;
  TaskAssignment& assignment_;
  FetchedRecords& fetched_;
  SinkRewinds& rewinds_;
  OffsetLedger& ledger_;
  SinkRecordConversion* conversion_ = nullptr;
  std::optional<std::chrono::milliseconds> timeout_;
  int retry_attempt_ = 0;
  time_point retry_at_{};
  time_point first_retry_failure_{};
};

}  // namespace ksink
