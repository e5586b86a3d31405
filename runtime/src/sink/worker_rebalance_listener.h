// WorkerRebalanceListener: what WorkerSinkTask does when the group changes its assignment —
// Connect's HandleRebalance. An assigned partition starts at its committed offset (read for
// default.api.timeout.ms, never guessed; else auto.offset.reset's end), then the task's open()
// runs, and the rewinds it asks for there become the start offsets; a start past the partition's
// end (the topic was created again) fails the task rather than reset and skip. A revoked partition
// gets its revocation commit (which closes it); a lost one is only closed, never committed. Either
// way it is forgotten: ledger, pauses, rewinds, buffered records.
//
// Changes the state's assignment, ledger, pauses, rewinds, batch and parked messages.
// Thread-safety: librdkafka calls it inside KafkaConsumer::poll(), so on the task's thread only.
#pragma once

#include <set>
#include <vector>

#include "kafka_consumer.h"
#include "worker_batch_delivery.h"
#include "worker_commit_cycle.h"
#include "worker_task_state.h"

namespace ksink {

class WorkerRebalanceListener final : public RebalanceListener {
 public:
  WorkerRebalanceListener(WorkerTaskState& state, WorkerBatchDelivery& delivery,
                          WorkerCommitCycle& commits)
      : state_(state), delivery_(delivery), commits_(commits) {}

  OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>& partitions) override;
  void afterAssigned(const std::vector<TopicPartition>& partitions) override;
  void onPartitionsRevoked(const std::vector<TopicPartition>& partitions, bool lost) override;

 private:
  // The committed offsets of newly assigned partitions; throws when they cannot be read.
  OffsetMap committedOffsets(const std::vector<TopicPartition>& partitions);
  // Throws when a start (other than those in `read_from_watermarks`) lies past its partition's
  // end: the topic was deleted and created again since the offset was stored.
  void requireStartsWithinPartitions(const OffsetMap& start,
                                     const std::set<TopicPartition>& read_from_watermarks);
  // Drops every trace of partitions no longer assigned (ledger, pauses, rewinds, buffered records).
  void forgetPartitions(const std::vector<TopicPartition>& partitions);

  WorkerTaskState& state_;
  WorkerBatchDelivery& delivery_;
  WorkerCommitCycle& commits_;
};

}  // namespace ksink
