// WorkerTaskState: what the parts of one WorkerSinkTask share — the consumer, the assignment, the
// offset ledger, the records polled but not yet put, the rewinds the task asked for. The parts
// (WorkerTaskContext, WorkerBatchDelivery, WorkerCommitCycle, WorkerRebalanceListener) each say
// which of these they change; WorkerSinkTask owns the state and the parts.
//
// Thread-safety: the task's thread only (the rebalance callbacks run inside KafkaConsumer::poll()
// on that thread). The reporter is created with the state, so status() may read it from any
// thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "clock.h"
#include "kafka_consumer.h"
#include "ksink/connect_record.h"
#include "ksink/sink_task.h"
#include "offset_ledger.h"
#include "record_bytes.h"
#include "sink_connector_config.h"
#include "sink_record_conversion.h"
#include "task_assignment.h"
#include "task_metrics.h"
#include "worker_errant_record_reporter.h"

namespace ksink {

inline TopicPartition partitionOf(const rd_kafka_message_t* m) {
  return {rd_kafka_topic_name(m->rkt), m->partition};
}

// Records polled but not yet put successfully, and the bytes they view (copied from the messages,
// which are released as soon as they are added).
struct WorkerBatch {
  std::vector<SinkRecord> records;
  RecordBytes bytes;
  // What the runtime's conversion (SinkRecordConversion) made of records[0, converted_count): the
  // records put() gets — those no transform dropped and that were not skipped as bad — and, index
  // for index, their converted form. Empty for a task that converts records itself.
  std::vector<SinkRecord> put_records;
  std::vector<ConnectRecord> connect_records;
  size_t converted_count = 0;

  bool empty() const { return records.empty(); }
  size_t size() const { return records.size(); }
  void add(const rd_kafka_message_t* message);
  void clear();
  void dropPartitions(const std::set<TopicPartition>& partitions);

 private:
  std::string_view topic_;  // the last added record's topic, copied once per run of them
};

struct WorkerTaskState {
  using time_point = Clock::time_point;

  WorkerTaskState(int task_id, const SinkConnectorConfig& worker_settings, SinkTask& sink_task,
                  TaskMetrics& task_metrics, const Clock& task_clock)
      : id(task_id),
        settings(worker_settings),
        task(sink_task),
        metrics(task_metrics),
        clock(task_clock) {
    if (settings.errors.reporterEnabled())
      reporter = std::make_unique<WorkerErrantRecordReporter>(
          settings.errors, settings.name, settings.sink_name, id, settings.offset_flush_timeout);
  }

  time_point now() const { return clock.now(); }
  // The timeout of a wait until `t` (see Clock::timeoutUntil).
  std::chrono::milliseconds until(time_point t) const { return clock.timeoutUntil(t); }

  const int id;
  const SinkConnectorConfig& settings;
  SinkTask& task;
  TaskMetrics& metrics;
  const Clock& clock;  // all the task's time: its loop, commit cycle and backoff
  std::shared_ptr<KafkaConsumer> consumer;  // set by run(), reset once closed

  OffsetLedger ledger;
  TaskAssignment assignment;
  WorkerBatch batch;
  std::deque<MessagePtr> parked;  // fetched for partitions that were paused at the time
  OffsetMap pending_rewinds;
  std::optional<OffsetMap> assign_rewinds;  // set while open() runs inside the assign callback
  std::optional<std::chrono::milliseconds> context_timeout;
  bool task_stopped = false;

  std::unique_ptr<WorkerErrantRecordReporter> reporter;  // null: no tolerance, DLQ or log
  // The runtime's conversion before put(); null for a task that converts records itself.
  std::unique_ptr<SinkRecordConversion> conversion;
};

}  // namespace ksink
