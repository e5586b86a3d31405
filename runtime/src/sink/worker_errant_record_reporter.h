// WorkerErrantRecordReporter: the worker's ErrantRecordReporter. Applies errors.tolerance to the
// records a task reports: under `none` the report throws (the task fails, nothing is skipped);
// under `all` the record is logged (errors.log.enable) and written to the dead-letter queue (when
// one is configured) and the task goes on. Used from the task's thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "dead_letter_queue.h"
#include "errors_config.h"
#include "ksink/errant_record_reporter.h"

namespace ksink {

// What report() throws under errors.tolerance=none: fatal for the task.
class ToleranceExceededError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ErrorMetrics {
  std::atomic<uint64_t> total_record_errors{0};
  std::atomic<uint64_t> total_records_skipped{0};
  std::atomic<uint64_t> total_errors_logged{0};
  std::atomic<int64_t> last_error_timestamp_ms{0};
};

class WorkerErrantRecordReporter final : public ErrantRecordReporter {
 public:
  // `delivery_timeout`: how long awaitDelivered() waits (the worker's offset.flush.timeout.ms).
  WorkerErrantRecordReporter(ErrorsConfig config, std::string connector, std::string sink_name,
                             int task_id, std::chrono::milliseconds delivery_timeout);

  // A record the task reports: its stage is VALUE_CONVERTER for a ConversionError (or a
  // conversion whose retries ran out), else TASK_PUT.
  void report(const SinkRecord& record, const std::exception& error) override;
  // A record that failed at `stage` (Connect's names: KEY_CONVERTER, VALUE_CONVERTER,
  // TRANSFORMATION, TASK_PUT), as the runtime's conversion reports it.
  void report(const SinkRecord& record, const std::exception& error, std::string_view stage);

  // Every DLQ write so far acknowledged within the delivery timeout (kDelivered when there is no
  // DLQ).
  Delivery awaitDelivered() override;

  const ErrorMetrics& metrics() const { return metrics_; }
  uint64_t dlqProduceRequests() const { return dlq_ ? dlq_->produceRequests() : 0; }
  uint64_t dlqProduceFailures() const { return dlq_ ? dlq_->produceFailures() : 0; }

 private:
  const ErrorsConfig config_;
  const std::string connector_;
  const std::string sink_name_;
  const int task_id_;
  const std::chrono::milliseconds delivery_timeout_;
  std::unique_ptr<DeadLetterQueue> dlq_;
  ErrorMetrics metrics_;
};

}  // namespace ksink
