#include "worker_source_task.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "create_topics.h"
#include "locked_offset_reader.h"
#include "published_status.h"

namespace ksink {
WorkerSourceTask::WorkerSourceTask(int id, SourceConnectorConfig settings, Config config,
                                   std::unique_ptr<detail::SourceTaskDriver> task,
                                   std::shared_ptr<OffsetBackingStore> store, const Clock& clock)
    : WorkerTask(id, fmt::format("source task {}-{}", settings.worker.name, id), clock,
                 settings.worker.shutdown_graceful_timeout),
      settings_(std::move(settings)),
      config_(std::move(config)),
      task_(std::move(task)),
      store_(std::move(store)),
      commits_(*store_, clock, settings_.worker.offset_flush_interval,
               settings_.worker.offset_flush_timeout),
      topic_creation_(settings_.topic_creation),
      poll_(fmt::format("{}-{}", settings_.worker.name, id), clock_, mutex_, counters_, published_,
            pause_),
      waker_(*task_),
      calls_(*task_, fmt::format("{}-{}", settings_.worker.name, id)),
      reader_(*store_, mutex_) {}

WorkerSourceTask::~WorkerSourceTask() = default;

void WorkerSourceTask::wakeTask() {
  waker_.wake();
}

void WorkerSourceTask::start() {
  auto props = settings_.producer_properties;
  props["client.id"] += fmt::format("-{}", id());
  producer_ = std::make_unique<KafkaProducer>(
      props, [this](uint64_t token, const std::optional<std::string>& error,
                    const RecordMetadata& metadata) {
        deliveries_.push_back({token, error, metadata});
      });
  {
    std::lock_guard lock(mutex_);
    store_->start();
  }
  if (stop_.requested()) return;
  task_->start(config_, reader_);
  waker_.started();
  if (stop_.requested()) wakeTask();  // a stop that came during start()
  spdlog::info("source task {}-{} started (version {})", settings_.worker.name, id(),
               task_->version());
  service_ = std::thread([this] { serve(); });
}

void WorkerSourceTask::serve() {
  while (!service_stopping_) {
    producer_->poll(SourcePoll::kIdleWait);  // acknowledgements, into deliveries_
    Committed committed;
    std::optional<uint64_t> turn;  // none when nothing is owed: no wait for another's calls
    {
      std::lock_guard lock(mutex_);
      applyDeliveries(committed);
      harvest();
      commits_.tick();
      store_->poll(std::chrono::milliseconds(0));
      committed.commit = commits_.takeCommitted();
      if (!committed.empty()) turn = calls_.takeTurn();
    }
    if (turn) calls_.make(*turn, {&committed});
    publish();
  }
}

void WorkerSourceTask::iteration() {
  {
    std::lock_guard lock(mutex_);
    if (send_failure_)
      throw std::runtime_error("Unrecoverable exception from producer send callback: " +
                               *send_failure_);
  }
  if (next_to_send_ >= to_send_.size()) {
    auto polled = poll_(
        [&] {
          to_send_.clear();
          next_to_send_ = 0;
          return task_->poll();
        },
        SourcePoll::kIdleWait);
    if (!polled) return;
    to_send_ = std::move(*polled);
    if (to_send_.empty()) {
      clock_.sleepFor(SourcePoll::kIdleWait);
      return;
    }
    createTopics();
  }
  sendRecords();
}

void WorkerSourceTask::createTopics() {
  if (topic_creation_)
    createTopicsFor(to_send_, *topic_creation_, producer_->handle(), stop_.requestedFlag(),
                    fmt::format("{}-{}", settings_.worker.name, id()));
}

void WorkerSourceTask::sendRecords() {
  while (next_to_send_ < to_send_.size() && !stop_.requested()) {
    Committed dropped;
    std::optional<uint64_t> turn;
    {
      // Held from send() to the record's registration: its acknowledgement is applied under it.
      std::lock_guard lock(mutex_);
      for (; next_to_send_ < to_send_.size(); ++next_to_send_) {
        auto& r = to_send_[next_to_send_];
        if (r.partition_key_mismatch) ++counters_.source_partition_key_mismatches;
        if (!r.record) {  // dropped: its offset counts as acknowledged at once
          if (r.skipped) {
            ++counters_.total_record_errors;
            ++counters_.total_records_skipped;
          }
          submitted_.ack(submitted_.submit(*r.offset_key, std::move(r.offset_value)));
          dropped.records.emplace_back(r.id, std::nullopt);
          continue;
        }
        const uint64_t token = in_flight_base_ + in_flight_.size();
        if (producer_->send(*r.record, token) == KafkaProducer::Send::kQueueFull) break;
        in_flight_.push_back({submitted_.submit(*r.offset_key, std::move(r.offset_value)), r.id});
      }
      if (!dropped.empty()) turn = calls_.takeTurn();
    }
    if (turn) calls_.make(*turn, {&dropped});
    // The byte budget is spent: the service thread serves acknowledgements meanwhile.
    if (next_to_send_ < to_send_.size()) clock_.sleepFor(std::chrono::milliseconds(1));
  }
}

void WorkerSourceTask::applyDeliveries(Committed& committed) {
  for (auto& d : deliveries_) {
    if (d.token < in_flight_base_ || d.token - in_flight_base_ >= in_flight_.size()) continue;
    auto& sent = in_flight_[d.token - in_flight_base_];
    if (sent.done) continue;
    sent.done = true;
    if (!d.error) {
      ++counters_.source_record_write_total;
      submitted_.ack(sent.handle);
      committed.records.emplace_back(sent.record_id, std::move(d.metadata));
      continue;
    }
    if (producer_closing_) continue;  // purged by a cancel: nothing more is committed anyway
    ++counters_.total_record_errors;
    if (!settings_.errors.tolerate_all) {
      // Never acknowledged: nothing past it is committed, and the task fails.
      if (!send_failure_)
        send_failure_ =
            fmt::format("{} (record for {}-{})", *d.error, d.metadata.topic, d.metadata.partition);
      continue;
    }
    // Connect (KIP-779): under errors.tolerance=all a record Kafka refused is skipped, and its
    // offset committed.
    ++counters_.total_records_skipped;
    if (settings_.errors.log_errors)
      spdlog::error("source task {}-{}: a record for {} was not written and is skipped: {}",
                    settings_.worker.name, id(), d.metadata.topic, *d.error);
    submitted_.ack(sent.handle);
    committed.records.emplace_back(sent.record_id, std::nullopt);
  }
  deliveries_.clear();
  while (!in_flight_.empty() && in_flight_.front().done) {
    in_flight_.pop_front();
    ++in_flight_base_;
  }
}

void WorkerSourceTask::harvest() {
  commits_.offer(submitted_.committable());
  counters_.source_record_active_count = static_cast<int64_t>(submitted_.unacknowledged());
}

std::exception_ptr WorkerSourceTask::finish(std::exception_ptr failure,
                                            Clock::time_point deadline) {
  service_stopping_ = true;
  if (service_.joinable()) service_.join();
  if (waker_.hasStarted() && producer_) {
    if (stop_.cancelled()) {
      producer_closing_ = true;
      producer_->purge();
    } else {
      // What is in flight is awaited (offset.flush.timeout.ms), after a failure too, as
      // Connect's finalOffsetCommit does; then a final commit of what Kafka acknowledged.
      const auto flush_until =
          std::min(deadline, clock_.now() + settings_.worker.offset_flush_timeout);
      while (producer_->inFlight() > 0 && clock_.now() < flush_until)
        producer_->poll(std::min(clock_.timeoutUntil(flush_until), SourcePoll::kIdleWait));
      producer_->poll(std::chrono::milliseconds(0));
      Committed committed;
      {
        std::lock_guard lock(mutex_);
        applyDeliveries(committed);
        harvest();
        const auto commit_until =
            std::min(deadline, clock_.now() + settings_.worker.offset_flush_timeout);
        if (!commits_.commitNow(commit_until))
          spdlog::warn(
              "source task {}-{}: the final offset commit did not complete; {} "
              "offset(s) not stored",
              settings_.worker.name, id(), commits_.uncommitted());
        store_->drain(clock_.timeoutUntil(commit_until));  // copies to the worker's topic too
        committed.commit = commits_.takeCommitted();
        counters_.offset_commit_seq_no = commits_.counters().seq_no;
        counters_.offset_commit_completion_total = commits_.counters().completions;
        counters_.offset_commit_failure_total = commits_.counters().failures;
      }
      calls_.make(committed);
    }
  }
  if (waker_.hasStarted()) {
    waker_.stopping();
    try {
      task_->stop();
    } catch (...) {
      spdlog::error("source task {}-{}: stop() failed: {}", settings_.worker.name, id(),
                    describeFailure(std::current_exception()));
      if (!failure) failure = std::current_exception();
    }
  }
  if (producer_) {
    producer_closing_ = true;
    producer_.reset();  // before the state its callbacks use
  }
  publish();
  return failure;
}

void WorkerSourceTask::publish() {
  std::lock_guard lock(mutex_);
  auto counters = counters_;
  counters.offset_commit_seq_no = commits_.counters().seq_no;
  counters.offset_commit_completion_total = commits_.counters().completions;
  counters.offset_commit_failure_total = commits_.counters().failures;
  publishCounters(counters);
}

}  // namespace ksink
