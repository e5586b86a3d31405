// ConnectorStatus: a point-in-time copy of what a Worker's tasks are doing (Worker::status()),
// what `ksink run` serves on /status and /metrics. Plain values: safe to hand to any thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ksink/topic_partition.h"

namespace ksink {

// One partition's offset ledger (next offsets to read): delivered to a successful put(),
// confirmed durable by preCommit(), committed to the consumer group. committed ≤ confirmed ≤
// delivered; nullopt while the partition's start position is not known.
struct PartitionOffsets {
  std::optional<int64_t> delivered;
  std::optional<int64_t> confirmed;
  std::optional<int64_t> committed;
  friend bool operator==(const PartitionOffsets&, const PartitionOffsets&) = default;
};

struct PartitionStatus {
  TopicPartition tp;
  PartitionOffsets offsets;
  std::optional<int64_t> end;  // high watermark as last seen by the fetcher
  // Records in the partition not yet confirmed durable by the sink.
  std::optional<int64_t> lag() const {
    if (!end || !offsets.confirmed) return std::nullopt;
    return std::max<int64_t>(0, *end - *offsets.confirmed);
  }
};

// A task's counters, grouped as Connect's metric groups are: those every task kind has, then one
// group per kind, present for that kind only.

// Offset commits (Connect's connector-task-metrics offset-commit-*).
struct CommitCounters {
  uint64_t offset_commit_seq_no = 0;
  uint64_t offset_commit_completion_total = 0;
  uint64_t offset_commit_skip_total = 0;
  uint64_t offset_commit_failure_total = 0;
};

// Bad records and retries (Connect's task-error-metrics).
struct ErrorCounters {
  // Retries made: of a record's conversion after a RetriableError (Connect's total-retries) and of
  // put() after one.
  uint64_t total_retries = 0;
  uint64_t total_record_errors = 0;
  uint64_t total_records_skipped = 0;
  uint64_t total_errors_logged = 0;
  uint64_t deadletterqueue_produce_requests = 0;
  uint64_t deadletterqueue_produce_failures = 0;
  int64_t last_error_timestamp_ms = 0;
};

// A sink task's (Connect's sink-task-metrics).
struct SinkCounters {
  uint64_t sink_record_read_total = 0;
  uint64_t sink_record_send_total = 0;
  uint64_t put_batch_count = 0;
  double put_batch_avg_time_ms = 0;
  double put_batch_max_time_ms = 0;
  uint64_t retriable_put_failures = 0;
};

// A source task's (Connect's source-task-metrics): records poll() returned, records Kafka
// acknowledged, records returned and not yet acknowledged, how long poll() took; then ksink's own.
struct SourceCounters {
  uint64_t source_record_poll_total = 0;
  uint64_t source_record_write_total = 0;
  int64_t source_record_active_count = 0;
  uint64_t poll_batch_count = 0;
  double poll_batch_avg_time_ms = 0;
  double poll_batch_max_time_ms = 0;
  // Partitions emitted without a stored offset while one equal up to key order or number types
  // has one (Connect does not see it).
  uint64_t source_partition_key_mismatches = 0;
  // An exactly-once source task's transactions: committed, and aborted at the task's request.
  uint64_t transaction_commit_total = 0;
  uint64_t transaction_abort_total = 0;
};

struct TaskCounters {
  CommitCounters commits;
  ErrorCounters errors;
  std::optional<SinkCounters> sink;      // a sink task's
  std::optional<SourceCounters> source;  // a source task's
};

struct TaskStatus {
  int id = 0;
  std::string state;  // UNASSIGNED (not started), RUNNING, FAILED, STOPPED
  std::string last_error;
  // ksink's: what does not move while the task has work, and for how long (a sink's records wait
  // with no commit, a source's poll() has not returned; task.stall.intervals); empty otherwise.
  std::string stalled;
  std::vector<PartitionStatus> partitions;
  TaskCounters counters;

  // Records read but not yet committed (Connect's sink-record-active-count).
  int64_t activeCount() const {
    int64_t total = 0;
    for (const auto& p : partitions)
      if (p.offsets.delivered && p.offsets.committed)
        total += std::max<int64_t>(0, *p.offsets.delivered - *p.offsets.committed);
    return total;
  }
  // The largest lag of any partition (Connect's sink-record-lag-max, which Connect never records).
  int64_t lagMax() const {
    int64_t max = 0;
    for (const auto& p : partitions) max = std::max(max, p.lag().value_or(0));
    return max;
  }
};

struct ConnectorStatus {
  std::string name;
  std::string type = "sink";  // Connect's connector type, as its REST status shows it: sink, source
  std::string connector_class;  // connector.class, whatever the type (/status's "class")
  std::vector<TaskStatus> tasks;
};

}  // namespace ksink
