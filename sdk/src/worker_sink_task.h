// WorkerSinkTask: drives one SinkTask with one librdkafka consumer, with Kafka Connect's
// WorkerSinkTask semantics (its call order and commit cycle) and the
// offset ledger's invariant committed ≤ confirmed ≤ delivered.
//
// run() is called on the task's own thread and holds it until the task ends; everything the
// SinkTask sees happens on that thread. stop() and cancel() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "ksink/connector_status.h"
#include "kafka_consumer.h"
#include "ksink/sink_task.h"
#include "ksink/sink_task_context.h"
#include "offset_ledger.h"
#include "stage_retry.h"
#include "task_metrics.h"
#include "worker_config.h"
#include "worker_errant_record_reporter.h"

namespace ksink {

class WorkerSinkTask final : public SinkTaskContext, private RebalanceListener {
 public:
  using Clock = std::chrono::steady_clock;

  WorkerSinkTask(int id, WorkerConfig settings, Config config, std::unique_ptr<SinkTask> task);
  ~WorkerSinkTask() override;

  // Runs the task until stop() or a fatal error; rethrows the task's fatal error.
  void run();
  // Graceful stop: the loop ends after the current put(); final commit and teardown must be done
  // by `deadline`.
  void stop(Clock::time_point deadline);
  // The graceful stop ran out of time: skip the final commit (close() and stop() still run).
  void cancel() { cancelled_ = true; }

  int id() const { return id_; }
  const TaskMetrics& metrics() const { return metrics_; }
  // A copy of the ledger, refreshed at every loop iteration.
  std::map<TopicPartition, PartitionOffsets> ledgerSnapshot() const;
  // What /status and /metrics show; refreshed at every loop iteration. Any thread.
  TaskStatus status() const;

  // SinkTaskContext
  std::set<TopicPartition> assignment() const override;
  void offset(const TopicPartition& tp, int64_t offset) override;
  void offset(const OffsetMap& offsets) override;
  void timeout(std::chrono::milliseconds timeout) override;
  void pause(const std::vector<TopicPartition>& partitions) override;
  void resume(const std::vector<TopicPartition>& partitions) override;
  void requestCommit() override { commit_requested_ = true; }
  ErrantRecordReporter* errantRecordReporter() override { return reporter_.get(); }
  const Config& config() const override { return config_; }
  void retryConversion(std::exception_ptr failure, const std::function<void()>& convert) override {
    stage_retry_.run(std::move(failure), convert);
  }

 private:
  // Records polled but not yet put successfully; the messages own the bytes the records view.
  struct Batch {
    std::vector<MessagePtr> messages;
    std::vector<SinkRecord> records;
    bool empty() const { return messages.empty(); }
    void dropPartitions(const std::set<TopicPartition>& partitions);
  };
  struct InflightCommit {
    uint64_t seqno;
    Clock::time_point started;
    OffsetMap offsets;
  };
  enum class CommitMode { kPeriodic, kRevoke, kFinal };

  void iteration();
  void pollBatch(Clock::time_point deadline);
  void deliver();
  void accept(MessagePtr message);
  void commitOffsets(CommitMode mode, const std::vector<TopicPartition>& partitions);
  // Filters what preCommit() returned through the ledger and sends the commit.
  void commitConfirmed(CommitMode mode, const std::vector<TopicPartition>& partitions,
                       const OffsetMap& provided, uint64_t seqno);
  bool commitAndWait(const OffsetMap& offsets, uint64_t seqno, Clock::time_point deadline);
  void handleCommitResult(const CommitResult& result);
  void drainCommitResults();
  void applyRewinds();
  void rewindTo(const OffsetMap& offsets);
  // Returns the task's failure: `failure`, else what failed during the teardown.
  std::exception_ptr finish(std::exception_ptr failure);
  bool isPaused(const TopicPartition& tp) const;
  void pauseForRedelivery();
  void resumeAfterRedelivery();
  std::chrono::milliseconds retryDelay() const;
  void publishSnapshot();

  // The committed offsets of newly assigned partitions; throws when they cannot be read.
  OffsetMap committedOffsets(const std::vector<TopicPartition>& partitions);

  // RebalanceListener
  OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>& partitions) override;
  void afterAssigned(const std::vector<TopicPartition>& partitions) override;
  void onPartitionsRevoked(const std::vector<TopicPartition>& partitions, bool lost) override;
  // Drops every trace of partitions no longer assigned (ledger, pauses, rewinds, buffered records).
  void forgetPartitions(const std::vector<TopicPartition>& partitions);

  const int id_;
  const WorkerConfig settings_;
  const Config config_;
  std::unique_ptr<SinkTask> task_;
  std::shared_ptr<KafkaConsumer> consumer_;

  OffsetLedger ledger_;
  std::set<TopicPartition> assigned_;
  Batch batch_;
  std::deque<MessagePtr> parked_;  // fetched for partitions that were paused at the time
  std::set<TopicPartition> paused_by_task_;
  uint64_t assignment_epoch_ = 1;  // bumped whenever assigned_ or paused_by_task_ change
  OffsetMap pending_rewinds_;
  std::optional<OffsetMap> assign_rewinds_;  // set while open() runs inside the assign callback
  std::optional<std::chrono::milliseconds> context_timeout_;

  bool paused_for_redelivery_ = false;
  int retry_attempt_ = 0;
  Clock::time_point retry_at_{};
  Clock::time_point first_retry_failure_{};

  uint64_t commit_seqno_ = 0;
  std::optional<InflightCommit> inflight_;
  Clock::time_point next_commit_{};
  bool task_stopped_ = false;
  bool dlq_failed_ = false;  // a DLQ write failed: nothing more is committed

  std::atomic<bool> commit_requested_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> cancelled_{false};
  std::atomic<int64_t> stop_deadline_ns_{0};

  std::unique_ptr<WorkerErrantRecordReporter> reporter_;  // null: no tolerance, DLQ or log
  TaskMetrics metrics_;
  StageRetry stage_retry_;  // after metrics_: counts into it
  mutable std::mutex snapshot_mutex_;  // guards the four below
  std::map<TopicPartition, PartitionOffsets> snapshot_;
  std::map<TopicPartition, int64_t> ends_;  // high watermarks, refreshed a few times a second
  Clock::time_point ends_refreshed_{};
  std::string state_ = "UNASSIGNED";
  std::string last_error_;
};

}  // namespace ksink
