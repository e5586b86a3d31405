// WorkerBatchDelivery: the batch half of WorkerSinkTask — polls a batch (pollBatch), hands it to
// put() (deliver), and redelivers the same batch after a RetriableError: it pauses every assigned
// partition, keeps polling (parking what still arrives), and calls put() again once the backoff
// (retryBackoff(), or the task's context().timeout()) has passed, until put() returns or
// errors.retry.timeout runs out. Rewinds (rewindTo) drop the records they give back.
//
// Changes the state's batch, parked messages, ledger (delivered) and the consumer's pauses.
// Thread-safety: the task's thread only.
#pragma once

#include <chrono>

#include "worker_task_state.h"

namespace ksink {

class WorkerBatchDelivery {
 public:
  using time_point = WorkerTaskState::time_point;

  explicit WorkerBatchDelivery(WorkerTaskState& state) : state_(state) {}

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

  bool pausedForRedelivery() const { return paused_for_redelivery_; }
  // When the batch is put() again; meaningful while pausedForRedelivery().
  time_point retryAt() const { return retry_at_; }

 private:
  void accept(MessagePtr message);
  void markDelivered();
  void pauseForRedelivery();
  void resumeAfterRedelivery();
  std::chrono::milliseconds retryDelay() const;

  WorkerTaskState& state_;
  bool paused_for_redelivery_ = false;
  int retry_attempt_ = 0;
  time_point retry_at_{};
  time_point first_retry_failure_{};
};

}  // namespace ksink
