// DeadLetterQueue: writes records a task could not handle to the DLQ topic, with the original key,
// value, headers and timestamp, plus Kafka Connect's ten __connect.errors.* headers when enabled.
//
// Writes are asynchronous; awaitDelivered() waits until every write so far is acknowledged, which
// the worker does before each offset commit, so a commit never covers a record whose DLQ copy
// could still be lost. Used from the task's thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "errors_config.h"
#include "ksink/errant_record_reporter.h"
#include "ksink/sink_record.h"

namespace ksink {

struct ErrorContext {
  std::string stage;            // TASK_PUT, KEY_CONVERTER, VALUE_CONVERTER
  std::string executing_class;  // what was running: the sink's or the converter's name
  std::string exception_class;  // demangled type of the error
  std::string message;
};

class DeadLetterQueue {
 public:
  // How long send() waits for room in a full producer queue before it gives up (throws).
  static constexpr std::chrono::milliseconds kQueueFullTimeout{30000};

  // Creates the producer and, when missing, the topic (1 partition, the configured replication
  // factor). Throws std::runtime_error when the producer cannot be created.
  DeadLetterQueue(const ErrorsConfig& config, std::string connector, int task_id,
                  std::chrono::milliseconds queue_full_timeout = kQueueFullTimeout);
  ~DeadLetterQueue();
  DeadLetterQueue(const DeadLetterQueue&) = delete;
  DeadLetterQueue& operator=(const DeadLetterQueue&) = delete;

  // Queues the record; throws std::runtime_error when librdkafka refuses it outright, or its
  // queue stays full for queue_full_timeout (the broker takes nothing).
  void send(const SinkRecord& record, const ErrorContext& context);
  // Waits at most `timeout` for every record sent so far. kFailed when a delivery failed since
  // the previous call (each failure is reported once), kPending when some are still unacknowledged.
  ErrantRecordReporter::Delivery awaitDelivered(std::chrono::milliseconds timeout);

  uint64_t produceRequests() const { return requests_; }
  uint64_t produceFailures() const { return failures_; }
  const std::string& topic() const { return topic_; }

 private:
  struct Producer;
  std::unique_ptr<Producer> producer_;
  std::string topic_;
  std::string connector_;
  int task_id_;
  bool context_headers_;
  std::chrono::milliseconds queue_full_timeout_;
  std::atomic<uint64_t> requests_{0};  // read by status() from other threads
  std::atomic<uint64_t> failures_{0};
  uint64_t failures_reported_ = 0;  // failures_ at the previous awaitDelivered()
};

}  // namespace ksink
