#include "source_task_loop.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "create_topics.h"

namespace ksink {

SourceTaskLoop::SourceTaskLoop(int id, SourceConnectorConfig settings, Config config,
                               std::unique_ptr<detail::SourceTaskDriver> task,
                               const detail::OffsetEntryReader& offsets, const Clock& clock)
    : WorkerTask(id, fmt::format("source task {}-{}", settings.worker.name, id),
                 settings.worker.name, clock, settings.worker.shutdown_graceful_timeout,
                 settings.worker.stall_after),
      settings_(std::move(settings)),
      config_(std::move(config)),
      label_(fmt::format("{}-{}", settings_.worker.name, id)),
      task_(std::move(task)),
      topic_creation_(settings_.topic_creation),
      calls_(*task_, label_),
      waker_(*task_),
      poll_(label_, clock_, mutex_, *counters_.source, published_, pause_, progress_),
      reader_(offsets, mutex_) {}

void SourceTaskLoop::start() {
  auto properties = settings_.producer_properties;
  properties["client.id"] += fmt::format("-{}", id());
  configureProducer(properties);
  producer_ = std::make_unique<KafkaProducer>(
      properties, [this](uint64_t token, const std::optional<std::string>& error,
                         const RecordMetadata& metadata) { delivered(token, error, metadata); });
  if (!prepare() || stop_.requested()) return;
  task_->start(config_, reader_);
  waker_.started();
  if (stop_.requested()) wakeTask();  // a stop that came during start()
  spdlog::info("{} started (version {})", name(), task_->version());
  started();
}

void SourceTaskLoop::iteration() {
  checkFailure();
  if (next_to_send_ >= to_send_.size()) {
    auto polled = poll_(
        [&] {
          to_send_.clear();
          next_to_send_ = 0;
          return pollTask();
        },
        SourcePoll::kIdleWait);
    if (!polled) {
      nothingPolled();
      return;
    }
    to_send_ = std::move(*polled);
    const auto topics = topicsOf(to_send_);
    for (const auto topic : topics) topics_->used(topic);
    if (topic_creation_)
      createTopicsFor(topics, *topic_creation_, producer_->handle(), stop_.requestedFlag(), label_);
  }
  sendRecords();
  if (to_send_.empty()) clock_.sleepFor(SourcePoll::kIdleWait);
}

void SourceTaskLoop::countPolled(const detail::PolledRecord& record) {
  if (record.partition_key_mismatch) ++counters_.source->source_partition_key_mismatches;
  if (!record.record && record.skipped) {
    ++counters_.errors.total_record_errors;
    ++counters_.errors.total_records_skipped;
  }
}

std::exception_ptr SourceTaskLoop::finish(std::exception_ptr failure, Clock::time_point deadline) {
  failure = endSending(failure, deadline);
  if (waker_.hasStarted()) {
    waker_.stopping();
    try {
      task_->stop();
    } catch (...) {
      spdlog::error("{}: stop() failed: {}", name(), describeFailure(std::current_exception()));
      if (!failure) failure = std::current_exception();
    }
  }
  producer_.reset();  // before the kind's state its callback uses
  publish();
  return failure;
}

}  // namespace ksink
