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
    : SourceTaskLoop(id, std::move(settings), std::move(config), std::move(task), *store, clock),
      store_(std::move(store)),
      commits_(*store_, clock, settings_.worker.offset_flush_interval,
               settings_.worker.offset_flush_timeout) {}

WorkerSourceTask::~WorkerSourceTask() = default;

bool WorkerSourceTask::prepare() {
  std::lock_guard lock(mutex_);
  store_->start();
  return true;
}

void WorkerSourceTask::started() {
  service_ = std::thread([this] {
    const LogContext::Scope context(logContext());
    serve();
  });
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

void WorkerSourceTask::checkFailure() {
  std::lock_guard lock(mutex_);
  if (send_failure_)
    throw std::runtime_error("Unrecoverable exception from producer send callback: " +
                             *send_failure_);
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
        countPolled(r);
        if (!r.record) {  // dropped: its offset counts as acknowledged at once
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
      ++counters_.source->source_record_write_total;
      submitted_.ack(sent.handle);
      committed.records.emplace_back(sent.record_id, std::move(d.metadata));
      continue;
    }
    if (producer_closing_) continue;  // purged by a cancel: nothing more is committed anyway
    ++counters_.errors.total_record_errors;
    if (!settings_.errors.tolerate_all) {
      // Never acknowledged: nothing past it is committed, and the task fails.
      if (!send_failure_)
        send_failure_ =
            fmt::format("{} (record for {}-{})", *d.error, d.metadata.topic, d.metadata.partition);
      continue;
    }
    // Connect (KIP-779): under errors.tolerance=all a record Kafka refused is skipped, and its
    // offset committed.
    ++counters_.errors.total_records_skipped;
    if (settings_.errors.log_errors)
      spdlog::error("{}: a record for {} was not written and is skipped: {}", name(),
                    d.metadata.topic, *d.error);
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
  counters_.source->source_record_active_count = static_cast<int64_t>(submitted_.unacknowledged());
}

std::exception_ptr WorkerSourceTask::endSending(std::exception_ptr failure,
                                                Clock::time_point deadline) {
  service_stopping_ = true;
  if (service_.joinable()) service_.join();
  if (!sendingStarted()) return failure;
  if (stop_.cancelled()) {
    producer_closing_ = true;
    producer_->purge();
    return failure;
  }
  // What is in flight is awaited (offset.flush.timeout.ms), after a failure too, as Connect's
  // finalOffsetCommit does; then a final commit of what Kafka acknowledged.
  const auto flush_until = std::min(deadline, clock_.now() + settings_.worker.offset_flush_timeout);
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
      spdlog::warn("{}: the final offset commit did not complete; {} offset(s) not stored", name(),
                   commits_.uncommitted());
    store_->drain(clock_.timeoutUntil(commit_until));  // copies to the worker's topic too
    committed.commit = commits_.takeCommitted();
  }
  calls_.make(committed);
  producer_closing_ = true;  // the producer closes next: what it fails then is not the records'
  return failure;
}

void WorkerSourceTask::publish() {
  std::lock_guard lock(mutex_);
  auto counters = counters_;
  counters.commits = commits_.counters();
  publishCounters(counters);
}

}  // namespace ksink
