// WorkerSinkTask: drives one SinkTask with one librdkafka consumer, with Kafka Connect's
// WorkerSinkTask semantics (its call order and commit cycle) and the
// offset ledger's invariant committed ≤ confirmed ≤ delivered.
//
// It runs the loop and the shutdown, and is composed of the parts that do the work:
// WorkerBatchDelivery (poll, put(), redelivery), WorkerCommitCycle (preCommit and the group
// commits), WorkerRebalanceListener (assign, revoke, lose) and WorkerTaskContext (what the
// SinkTask may ask of it). It owns the state they change, in objects that each keep an invariant
// (the assignment and its pauses, the offset ledger, the fetched records, the rewinds), and hands
// each part those it uses; what they only read is the SinkTaskScope.
//
// Its lifecycle is WorkerTask's: run() is called on the task's own thread and holds it until the
// task ends; everything the SinkTask sees happens on that thread. stop(), cancel(), pause(),
// resume(), metrics(), ledgerSnapshot() and status() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "clock.h"
#include "fetched_records.h"
#include "kafka_consumer.h"
#include "ksink/connector_status.h"
#include "ksink/sink_task.h"
#include "offset_ledger.h"
#include "sink_connector_config.h"
#include "sink_record_conversion.h"
#include "sink_rewinds.h"
#include "sink_task_scope.h"
#include "stage_retry.h"
#include "task_assignment.h"
#include "task_metrics.h"
#include "worker_batch_delivery.h"
#include "worker_commit_cycle.h"
#include "worker_errant_record_reporter.h"
#include "worker_rebalance_listener.h"
#include "worker_task.h"
#include "worker_task_context.h"

namespace ksink {

class WorkerSinkTask final : public WorkerTask {
 public:
  // `clock`: where the task takes its time from (and waits on); it must outlive the task.
  WorkerSinkTask(int id, SinkConnectorConfig settings, Config config,
                 std::unique_ptr<SinkTask> task, const Clock& clock = Clock::steady());
  ~WorkerSinkTask() override;

  const TaskMetrics& metrics() const { return metrics_; }
  // A copy of the ledger, refreshed at every loop iteration.
  std::map<TopicPartition, PartitionOffsets> ledgerSnapshot() const;
  // What /status and /metrics show; refreshed at every loop iteration. Any thread.
  TaskStatus status() const override;

 private:
  // The consumer made and subscribed, the task initialized and started.
  void start() override;
  void iteration() override;
  // Returns the task's failure: `failure`, else what failed during the teardown.
  std::exception_ptr finish(std::exception_ptr failure, Clock::time_point deadline) override;
  // A conversion waiting to be retried inside put() gives up now.
  void onStop(Clock::time_point) override { stage_retry_.cancel(); }

  // The task's start(), called again while it throws RetriableError; false when a stop ended the
  // wait before it started.
  bool startTask();
  static constexpr std::chrono::milliseconds kStartRetryDelay{1000};
  // The runtime's conversion for a task that does not convert records itself; for one that does,
  // refuses a transforms= chain it does not declare.
  void setUpConversion();
  // The connector's pause or resume, applied to the partitions on the task's thread.
  void applyPause();
  void publishSnapshot();
  // The topics of the batch fetched, in the task's active topics.
  void markTopics();
  // The stall report's marks (TaskProgress), from the snapshot; with snapshot_mutex_ held.
  void trackProgress();

  const SinkConnectorConfig settings_;
  const Config config_;
  std::unique_ptr<SinkTask> task_;
  TaskMetrics metrics_;
  const SinkTaskScope scope_;

  // What the parts change.
  std::shared_ptr<KafkaConsumer> consumer_;  // made by start(), reset once closed
  TaskAssignment assignment_;
  OffsetLedger ledger_;
  FetchedRecords fetched_;
  SinkRewinds rewinds_;
  std::unique_ptr<WorkerErrantRecordReporter> reporter_;  // null: no tolerance, DLQ or log
  StageRetry stage_retry_;                                // after metrics_: counts into it
  // The runtime's conversion before put(); null for a task that converts records itself.
  std::unique_ptr<SinkRecordConversion> conversion_;

  WorkerBatchDelivery delivery_;
  WorkerCommitCycle commits_;
  WorkerRebalanceListener rebalance_;
  WorkerTaskContext context_;

  mutable std::mutex snapshot_mutex_;  // guards the three below
  std::map<TopicPartition, PartitionOffsets> snapshot_;
  std::map<TopicPartition, int64_t> ends_;  // high watermarks, refreshed a few times a second
  Clock::time_point ends_refreshed_{};
  int64_t committed_sum_ = 0;  // of the committed offsets, at the last snapshot
};

}  // namespace ksink
