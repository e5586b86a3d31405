// WorkerRebalanceListener: what WorkerSinkTask does when the group changes its assignment —
// Connect's HandleRebalance. An assigned partition starts at its committed offset (read for
// default.api.timeout.ms, never guessed; else auto.offset.reset's end), then the task's open()
// runs, and the rewinds it asks for there become the start offsets; a start past the partition's
// end (the topic was created again) fails the task rather than reset and skip. A revoked partition
// gets its revocation commit (which closes it); a lost one is only closed, never committed. Either
// way it is forgotten: ledger, pauses, rewinds, buffered records.
//
// Changes the assignment (and its pauses), the ledger, the rewinds and the fetched records.
// Thread-safety: librdkafka calls it inside KafkaConsumer::poll(), so on the task's thread only.
#pragma once

#include <memory>
#include <set>
#include <vector>

#include "fetched_records.h"
#include "kafka_consumer.h"
#include "offset_ledger.h"
#include "sink_rewinds.h"
#include "sink_task_scope.h"
#include "task_assignment.h"
#include "worker_batch_delivery.h"
#include "worker_commit_cycle.h"

namespace ksink {

class WorkerRebalanceListener final : public RebalanceListener {
 public:
  // `delivery`: ends a redelivery whose records were revoked; `commits`: the revocation commit.
  WorkerRebalanceListener(const SinkTaskScope& scope,
                          const std::shared_ptr<KafkaConsumer>& consumer,
                          TaskAssignment& assignment, OffsetLedger& ledger, SinkRewinds& rewinds,
                          FetchedRecords& fetched, WorkerBatchDelivery& delivery,
                          WorkerCommitCycle& commits)
      : scope_(scope),
        consumer_(consumer),
        assignment_(assignment),
        ledger_(ledger),
        rewinds_(rewinds),
        fetched_(fetched),
        delivery_(delivery),
        commits_(commits) {}

  OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>& partitions) override;
  void afterAssigned(const std::vector<TopicPartition>& partitions) override;
  void onPartitionsRevoked(const std::vector<TopicPartition>& partitions, bool lost) override;
  // The task's stop() returned: revocations (the consumer's close) no longer reach it.
  void taskStopped() { task_stopped_ = true; }

 private:
  // The committed offsets of newly assigned partitions; throws when they cannot be read.
  OffsetMap committedOffsets(const std::vector<TopicPartition>& partitions);
  // Throws when a start (other than those in `read_from_watermarks`) lies past its partition's
  // end: the topic was deleted and created again since the offset was stored.
  void requireStartsWithinPartitions(const OffsetMap& start,
                                     const std::set<TopicPartition>& read_from_watermarks);
  // Drops every trace of partitions no longer assigned (ledger, pauses, rewinds, buffered records).
  void forgetPartitions(const std::vector<TopicPartition>& partitions);

  const SinkTaskScope& scope_;
  const std::shared_ptr<KafkaConsumer>& consumer_;
  TaskAssignment& assignment_;
  OffsetLedger& ledger_;
  SinkRewinds& rewinds_;
  FetchedRecords& fetched_;
  WorkerBatchDelivery& delivery_;
  WorkerCommitCycle& commits_;
  bool task_stopped_ = false;
};

}  // namespace ksink
