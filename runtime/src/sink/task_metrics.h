// TaskMetrics: the counters of one task, named after Kafka Connect's sink-task metrics.
// Written by the task thread, read from any thread (/metrics, tests).
#pragma once

#include <atomic>
#include <cstdint>

namespace ksink {

struct TaskMetrics {
  std::atomic<uint64_t> sink_record_read_total{0};
  std::atomic<uint64_t> sink_record_send_total{0};
  std::atomic<uint64_t> offset_commit_seq_no{0};
  std::atomic<uint64_t> offset_commit_completion_total{0};
  std::atomic<uint64_t> offset_commit_skip_total{0};
  std::atomic<uint64_t> offset_commit_failure_total{0};
  std::atomic<uint64_t> put_batch_count{0};
  std::atomic<uint64_t> put_batch_total_time_us{0};
  std::atomic<uint64_t> put_batch_max_time_us{0};
  std::atomic<uint64_t> retriable_put_failures{0};
  // Connect's total-retries: conversions retried after a RetriableError (errors.retry.timeout),
  // plus put() redeliveries after one (which Connect does not count).
  std::atomic<uint64_t> total_retries{0};
  std::atomic<int64_t> partition_count{0};
};

}  // namespace ksink
