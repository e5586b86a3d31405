// WorkerCommitCycle: WorkerSinkTask's offset commits, Kafka Connect's commit cycle. One attempt
// (commit()) waits for the dead-letter queue, calls preCommit(delivered), filters what it returned
// through the ledger into `confirmed`, and sends it to the group:
//  - periodic (every offset.flush.interval.ms, or soon after requestCommit()): asynchronously, at
//    most one in flight; one unanswered after offset.flush.timeout.ms counts as failed, and its
//    late result is ignored;
//  - on revocation and at shutdown: closes the partitions, then waits for the answer, never longer
//    than offset.flush.timeout.ms (at shutdown, nor past the graceful-stop deadline; skipped when
//    the stop was cancelled).
// A preCommit() that throws rewinds to the last committed offsets; a failed DLQ write stops all
// further commits and fails the task.
//
// Changes the ledger (confirmed, committed). Thread-safety: the task's thread only, except
// request(), which any thread may call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kafka_consumer.h"
#include "offset_ledger.h"
#include "sink_task_scope.h"
#include "task_assignment.h"
#include "task_stop.h"
#include "worker_batch_delivery.h"
#include "worker_errant_record_reporter.h"

namespace ksink {

class WorkerCommitCycle {
 public:
  using time_point = SinkTaskScope::time_point;
  enum class Mode { kPeriodic, kRevoke, kFinal };

  // `stop`: the task's stop (its deadline bounds the final commit; cancelled, there is none).
  // `reporter`: null when the task has none. `delivery`: rewinds after a failed preCommit().
  WorkerCommitCycle(const SinkTaskScope& scope, const std::shared_ptr<KafkaConsumer>& consumer,
                    const TaskAssignment& assignment, OffsetLedger& ledger,
                    WorkerErrantRecordReporter* reporter, WorkerBatchDelivery& delivery,
                    const TaskStop& stop)
      : scope_(scope),
        consumer_(consumer),
        assignment_(assignment),
        ledger_(ledger),
        reporter_(reporter),
        delivery_(delivery),
        stop_(stop) {}

  // Arms the first periodic commit, offset.flush.interval.ms from now.
  void start();
  // The task's requestCommit(): the next loop iteration commits. Any thread.
  void request() { requested_ = true; }
  // The top of a loop iteration (`now`): starts a periodic commit when one is due and none is in
  // flight; gives up on the one in flight past offset.flush.timeout.ms.
  void tick(time_point now);
  // The latest the loop may wait before tick() has something to do.
  time_point nextWakeup() const;
  // One commit attempt for `partitions` (Connect's commitOffsets); closes them unless periodic.
  void commit(Mode mode, const std::vector<TopicPartition>& partitions);
  // Takes the results of asynchronous commits that have arrived.
  void drainResults();

 private:
  struct InflightCommit {
    uint64_t seqno;
    time_point started;
    OffsetMap offsets;
  };

  // Filters what preCommit() returned through the ledger and sends the commit.
  void commitConfirmed(Mode mode, const std::vector<TopicPartition>& partitions,
                       const OffsetMap& provided, uint64_t seqno);
  bool commitAndWait(const OffsetMap& offsets, uint64_t seqno, time_point deadline);
  void handleResult(const CommitResult& result);

  const SinkTaskScope& scope_;
  const std::shared_ptr<KafkaConsumer>& consumer_;
  const TaskAssignment& assignment_;
  OffsetLedger& ledger_;
  WorkerErrantRecordReporter* const reporter_;
  WorkerBatchDelivery& delivery_;
  const TaskStop& stop_;
  std::atomic<bool> requested_{false};
  uint64_t seqno_ = 0;
  std::optional<InflightCommit> inflight_;
  time_point next_commit_{};
  bool dlq_failed_ = false;  // a DLQ write failed: nothing more is committed
};

}  // namespace ksink
