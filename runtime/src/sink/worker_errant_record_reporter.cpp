#include "worker_errant_record_reporter.h"

#include <cxxabi.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <typeinfo>

#include "ksink/conversion_error.h"
#include "ksink/retriable_error.h"

namespace ksink {
namespace {

std::string demangledType(const std::exception& e) {
  int status = 0;
  char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
  std::string out = status == 0 && name ? name : typeid(e).name();
  std::free(name);
  return out;
}

}  // namespace

WorkerErrantRecordReporter::WorkerErrantRecordReporter(ErrorsConfig config, std::string connector,
                                                       std::string sink_name, int task_id,
                                                       std::chrono::milliseconds delivery_timeout)
    : config_(std::move(config)),
      connector_(std::move(connector)),
      sink_name_(std::move(sink_name)),
      task_id_(task_id),
      delivery_timeout_(delivery_timeout) {
  if (!config_.dlq_topic.empty())
    dlq_ = std::make_unique<DeadLetterQueue>(config_, connector_, task_id_);
}

void WorkerErrantRecordReporter::report(const SinkRecord& record, const std::exception& error) {
  // A RetriableError reaches a report only as a conversion whose retries ran out
  // (RecordMapper, errors.retry.timeout): put() hands its own to the worker instead.
  const bool conversion = dynamic_cast<const ConversionError*>(&error) != nullptr ||
                          dynamic_cast<const RetriableError*>(&error) != nullptr;
  report(record, error, conversion ? "VALUE_CONVERTER" : "TASK_PUT");
}

void WorkerErrantRecordReporter::report(const SinkRecord& record, const std::exception& error,
                                        std::string_view stage) {
  metrics_.total_record_errors++;
  metrics_.last_error_timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count();
  if (!config_.handling.tolerate_all) {
    // Connect would still copy the record to the DLQ here; ksink does not write a record to the
    // DLQ that it is not skipping (the task fails and the record is consumed again).
    throw ToleranceExceededError(fmt::format(
        "Tolerance exceeded in error handler (errors.tolerance=none): record {} failed at stage "
        "{}: {}",
        record, stage, error.what()));
  }
  ErrorContext context{std::string(stage), sink_name_, demangledType(error), error.what()};
  if (config_.handling.log_errors) {
    metrics_.total_errors_logged++;
    if (config_.handling.log_include_messages)
      spdlog::error("Error encountered in task {}-{} at stage {}: record {} (timestamp {}): {}",
                    connector_, task_id_, context.stage, record,
                    record.timestamp() ? std::to_string(*record.timestamp()) : "none",
                    error.what());
    else
      spdlog::error("Error encountered in task {}-{} at stage {}: {}", connector_, task_id_,
                    context.stage, error.what());
  }
  if (dlq_) dlq_->send(record, context);
  metrics_.total_records_skipped++;
}

ErrantRecordReporter::Delivery WorkerErrantRecordReporter::awaitDelivered() {
  return dlq_ ? dlq_->awaitDelivered(delivery_timeout_) : Delivery::kDelivered;
}

}  // namespace ksink
