#include "worker_batch_delivery.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "ksink/conversion_interrupted.h"
#include "ksink/retriable_error.h"
#include "retry_backoff.h"
#include "sink_record_conversion.h"

namespace ksink {

using std::chrono::milliseconds;

// Messages parked while their partition was paused go first, once it is not paused any more.
void WorkerBatchDelivery::takeParked() {
  auto& parked = fetched_.parked();
  auto& batch = fetched_.batch();
  if (assignment_.redelivering() || parked.empty()) return;
  std::deque<MessagePtr> still_parked;
  while (!parked.empty()) {
    auto m = std::move(parked.front());
    parked.pop_front();
    if (assignment_.isPaused(partitionOf(m.get())) ||
        static_cast<int>(batch.size()) >= scope_.settings.max_poll_records)
      still_parked.push_back(std::move(m));
    else
      batch.add(m.get());  // copies it: the message is released here
  }
  parked = std::move(still_parked);
}

void WorkerBatchDelivery::pollBatch(time_point deadline) {
  takeParked();
  auto& batch = fetched_.batch();
  // Wait for the first message up to the deadline, then take what is already fetched. While a
  // batch waits for redelivery, keep polling (it serves rebalances and keeps the group membership)
  // but park whatever still arrives.
  bool wait = batch.empty() || assignment_.redelivering();
  struct {
    rd_kafka_topic_t* rkt = nullptr;
    int32_t partition = -1;
    uint64_t epoch = 0;
    bool assigned = false;
    bool paused = false;
  } run;
  while (assignment_.redelivering() ||
         static_cast<int>(batch.size()) < scope_.settings.max_poll_records) {
    auto message = consumer_->poll(wait ? scope_.until(deadline) : milliseconds(0));
    if (!message) break;
    if (message->err) {
      if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
      if (message->err == RD_KAFKA_RESP_ERR__FATAL)
        throw std::runtime_error(
            fmt::format("fatal consumer error: {}", rd_kafka_message_errstr(message.get())));
      // Unreachable brokers, unknown topics and the like: librdkafka retries; keep going.
      spdlog::warn("task {}-{}: consumer: {}", scope_.settings.name, scope_.id,
                   rd_kafka_message_errstr(message.get()));
      if (scope_.now() >= deadline) break;
      continue;
    }
    scope_.metrics.sink_record_read_total++;
    // Records come in runs from one partition: decide once per run rather than per record
    // (a rebalance inside poll() bumps the epoch and so ends the run).
    if (message->rkt != run.rkt || message->partition != run.partition ||
        run.epoch != assignment_.epoch()) {
      const auto tp = partitionOf(message.get());
      run = {message->rkt, message->partition, assignment_.epoch(), assignment_.contains(tp),
             assignment_.consumerPaused(tp)};
    }
    if (!run.assigned) continue;  // stale: fetched before a revoke
    if (run.paused) {
      fetched_.parked().push_back(std::move(message));
      if (scope_.now() >= deadline) break;
      continue;
    }
    batch.add(message.get());  // copies it: the message is released here
    wait = false;
  }
}

void WorkerBatchDelivery::deliver() {
  auto& batch = fetched_.batch();
  // Rewinds asked for since the top of the iteration (in preCommit(), or in open() for a
  // partition assigned earlier) come before put(): the batch must not carry records from the old
  // position past them.
  applyRewinds();
  if (assignment_.redelivering() && scope_.now() < retry_at_) return;
  const auto started = scope_.now();
  bool converting = false;  // a retriable failure of the runtime's conversion, not of put()
  try {
    // A conversion the runtime runs: a record that fails it never reaches put(); one whose
    // converter's service is away holds the batch back like a retriable put().
    auto records = std::span<const SinkRecord>(batch.records);
    if (conversion_) {
      converting = true;
      records = conversion_->convert();
      converting = false;
    }
    scope_.task.put(records);
  } catch (const ConversionInterrupted&) {
    return;  // the task stops while a conversion waited for its retry: nothing is delivered
  } catch (const RetriableError& e) {
    const char* what = converting ? "the conversion before put()" : "put()";
    if (!converting) scope_.metrics.retriable_put_failures++;
    if (!assignment_.redelivering()) {
      first_retry_failure_ = started;
      retry_attempt_ = 0;
    }
    const auto& settings = scope_.settings;
    if (settings.retry_timeout.count() > 0 &&
        started - first_retry_failure_ >= settings.retry_timeout) {
      throw std::runtime_error(fmt::format(
          "{} kept failing with retriable errors for longer than errors.retry.timeout={} ms: {}",
          what, settings.retry_timeout.count(), e.what()));
    }
    const auto delay = retryDelay();
    retry_at_ = scope_.now() + delay;
    ++retry_attempt_;
    scope_.metrics.total_retries++;
    spdlog::warn("task {}-{}: retriable error from {} ({} records), retrying in {} ms: {}",
                 settings.name, scope_.id, what, batch.records.size(), delay.count(), e.what());
    pauseForRedelivery();
    return;
  }
  const auto took =
      std::chrono::duration_cast<std::chrono::microseconds>(scope_.now() - started).count();
  markDelivered();
  auto& metrics = scope_.metrics;
  metrics.sink_record_send_total += conversion_ ? batch.put_records.size() : batch.records.size();
  metrics.put_batch_count++;
  metrics.put_batch_total_time_us += static_cast<uint64_t>(took);
  if (static_cast<uint64_t>(took) > metrics.put_batch_max_time_us)
    metrics.put_batch_max_time_us = static_cast<uint64_t>(took);
  batch.clear();
  if (assignment_.redelivering()) resumeAfterRedelivery();
}

// Offsets advance only once put() returned normally; one ledger update per run of records from
// the same partition, not one per record.
void WorkerBatchDelivery::markDelivered() {
  std::map<TopicPartition, int64_t> next;
  const SinkRecord* run_start = nullptr;
  int64_t run_next = 0;
  auto endRun = [&] {
    if (!run_start) return;
    auto& n = next[run_start->topicPartition()];
    n = std::max(n, run_next);
  };
  for (const auto& r : fetched_.batch().records) {
    if (!run_start || r.partition() != run_start->partition() || r.topic() != run_start->topic()) {
      endRun();
      run_start = &r;
      run_next = 0;
    }
    run_next = std::max(run_next, r.offset() + 1);
  }
  endRun();
  for (const auto& [tp, offset] : next) ledger_.markDelivered(tp, offset);
}

milliseconds WorkerBatchDelivery::retryDelay() const {
  if (timeout_) return *timeout_;
  return retryBackoff(retry_attempt_, scope_.settings.retry_delay_max);
}

void WorkerBatchDelivery::pauseForRedelivery() {
  if (assignment_.redelivering()) return;
  assignment_.setRedelivering(true);
  consumer_->pause(assignment_.partitions());
}

void WorkerBatchDelivery::resumeAfterRedelivery() {
  assignment_.setRedelivering(false);
  retry_attempt_ = 0;
  std::vector<TopicPartition> to_resume;
  for (const auto& tp : assignment_.assigned())
    if (!assignment_.isPaused(tp)) to_resume.push_back(tp);
  consumer_->resume(to_resume);
}

void WorkerBatchDelivery::resumeIfNothingToRedeliver() {
  if (assignment_.redelivering() && fetched_.batch().empty()) resumeAfterRedelivery();
}

void WorkerBatchDelivery::applyRewinds() {
  if (rewinds_.hasPending()) rewindTo(rewinds_.takePending());
}

void WorkerBatchDelivery::rewindTo(const OffsetMap& offsets) {
  if (offsets.empty()) return;
  std::set<TopicPartition> rewound;
  for (const auto& [tp, offset] : offsets) {
    ledger_.rewind(tp, offset);
    rewound.insert(tp);
  }
  consumer_->seek(offsets, scope_.settings.offset_flush_timeout);
  fetched_.dropPartitions(rewound);
  resumeIfNothingToRedeliver();
}

}  // namespace ksink
