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

void WorkerBatch::add(const rd_kafka_message_t* m) {
  auto copy = [this](const void* data, size_t size) {
    return bytes.copy(std::string_view(static_cast<const char*>(data), size));
  };
  if (const std::string_view topic = rd_kafka_topic_name(m->rkt); topic != topic_)
    topic_ = bytes.copy(topic);
  rd_kafka_timestamp_type_t ts_type;
  const int64_t ts = rd_kafka_message_timestamp(m, &ts_type);
  std::optional<std::string_view> key, value;
  if (m->key) key = copy(m->key, m->key_len);
  if (m->payload) value = copy(m->payload, m->len);
  std::vector<Header> headers;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
    const char* name;
    const void* val;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == 0; ++i) {
      std::optional<std::string_view> hv;
      if (val) hv = copy(val, size);
      headers.push_back({bytes.copy(name), hv});
    }
  }
  records.emplace_back(topic_, m->partition, m->offset,
                       ts >= 0 ? std::optional<int64_t>(ts) : std::nullopt, key, value,
                       std::move(headers));
}

void WorkerBatch::clear() {
  records.clear();  // keeps the capacity for the next batch
  put_records.clear();
  connect_records.clear();
  converted_count = 0;
  bytes.clear();
  topic_ = {};
}

void WorkerBatch::dropPartitions(const std::set<TopicPartition>& partitions) {
  if (partitions.empty() || records.empty()) return;
  auto dropped = [&](const SinkRecord& r) { return partitions.contains(r.topicPartition()); };
  converted_count -= static_cast<size_t>(std::count_if(
      records.begin(), records.begin() + static_cast<ptrdiff_t>(converted_count), dropped));
  std::erase_if(records, dropped);
  // The converted ones, index for index (SinkRecordConversion links them again before put()).
  size_t kept = 0;
  for (size_t i = 0; i < put_records.size(); ++i) {
    if (dropped(put_records[i])) continue;
    if (kept != i) {
      put_records[kept] = std::move(put_records[i]);
      connect_records[kept] = std::move(connect_records[i]);
    }
    ++kept;
  }
  put_records.erase(put_records.begin() + static_cast<ptrdiff_t>(kept), put_records.end());
  connect_records.erase(connect_records.begin() + static_cast<ptrdiff_t>(kept),
                        connect_records.end());
}

void WorkerBatchDelivery::pollBatch(time_point deadline) {
  auto& s = state_;
  // Messages parked while their partition was paused go first, once it is not paused any more.
  if (!paused_for_redelivery_ && !s.parked.empty()) {
    std::deque<MessagePtr> still_parked;
    while (!s.parked.empty()) {
      auto m = std::move(s.parked.front());
      s.parked.pop_front();
      if (s.assignment.isPaused(partitionOf(m.get())) ||
          static_cast<int>(s.batch.size()) >= s.settings.max_poll_records)
        still_parked.push_back(std::move(m));
      else
        accept(std::move(m));
    }
    s.parked = std::move(still_parked);
  }
  // Wait for the first message up to the deadline, then take what is already fetched. While a
  // batch waits for redelivery, keep polling (it serves rebalances and keeps the group membership)
  // but park whatever still arrives.
  bool wait = s.batch.empty() || paused_for_redelivery_;
  struct {
    rd_kafka_topic_t* rkt = nullptr;
    int32_t partition = -1;
    uint64_t epoch = 0;
    bool assigned = false;
    bool paused = false;
  } run;
  while (paused_for_redelivery_ || static_cast<int>(s.batch.size()) < s.settings.max_poll_records) {
    auto message = s.consumer->poll(wait ? s.until(deadline) : milliseconds(0));
    if (!message) break;
    if (message->err) {
      if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
      if (message->err == RD_KAFKA_RESP_ERR__FATAL)
        throw std::runtime_error(
            fmt::format("fatal consumer error: {}", rd_kafka_message_errstr(message.get())));
      // Unreachable brokers, unknown topics and the like: librdkafka retries; keep going.
      spdlog::warn("task {}-{}: consumer: {}", s.settings.name, s.id,
                   rd_kafka_message_errstr(message.get()));
      if (s.now() >= deadline) break;
      continue;
    }
    s.metrics.sink_record_read_total++;
    // Records come in runs from one partition: decide once per run rather than per record
    // (a rebalance inside poll() bumps the epoch and so ends the run).
    if (message->rkt != run.rkt || message->partition != run.partition ||
        run.epoch != s.assignment.epoch()) {
      const auto tp = partitionOf(message.get());
      run = {message->rkt, message->partition, s.assignment.epoch(), s.assignment.contains(tp),
             s.assignment.isPaused(tp)};
    }
    if (!run.assigned) continue;  // stale: fetched before a revoke
    if (paused_for_redelivery_ || run.paused) {
      s.parked.push_back(std::move(message));
      if (s.now() >= deadline) break;
      continue;
    }
    accept(std::move(message));
    wait = false;
  }
}

void WorkerBatchDelivery::accept(MessagePtr message) {
  state_.batch.add(message.get());  // copies it: the message is released here
}

void WorkerBatchDelivery::deliver() {
  auto& s = state_;
  // Rewinds asked for since the top of the iteration (in preCommit(), or in open() for a
  // partition assigned earlier) come before put(): the batch must not carry records from the old
  // position past them.
  applyRewinds();
  if (paused_for_redelivery_ && s.now() < retry_at_) return;
  const auto started = s.now();
  bool converting = false;  // a retriable failure of the runtime's conversion, not of put()
  try {
    // A conversion the runtime runs: a record that fails it never reaches put(); one whose
    // converter's service is away holds the batch back like a retriable put().
    auto records = std::span<const SinkRecord>(s.batch.records);
    if (s.conversion) {
      converting = true;
      records = s.conversion->convert();
      converting = false;
    }
    s.task.put(records);
  } catch (const ConversionInterrupted&) {
    return;  // the task stops while a conversion waited for its retry: nothing is delivered
  } catch (const RetriableError& e) {
    const char* what = converting ? "the conversion before put()" : "put()";
    if (!converting) s.metrics.retriable_put_failures++;
    if (!paused_for_redelivery_) {
      first_retry_failure_ = started;
      retry_attempt_ = 0;
    }
    if (s.settings.retry_timeout.count() > 0 &&
        started - first_retry_failure_ >= s.settings.retry_timeout) {
      throw std::runtime_error(fmt::format(
          "{} kept failing with retriable errors for longer than errors.retry.timeout={} ms: {}",
          what, s.settings.retry_timeout.count(), e.what()));
    }
    const auto delay = retryDelay();
    retry_at_ = s.now() + delay;
    ++retry_attempt_;
    s.metrics.total_retries++;
    spdlog::warn("task {}-{}: retriable error from {} ({} records), retrying in {} ms: {}",
                 s.settings.name, s.id, what, s.batch.records.size(), delay.count(), e.what());
    pauseForRedelivery();
    return;
  }
  const auto took =
      std::chrono::duration_cast<std::chrono::microseconds>(s.now() - started).count();
  markDelivered();
  s.metrics.sink_record_send_total +=
      s.conversion ? s.batch.put_records.size() : s.batch.records.size();
  s.metrics.put_batch_count++;
  s.metrics.put_batch_total_time_us += static_cast<uint64_t>(took);
  if (static_cast<uint64_t>(took) > s.metrics.put_batch_max_time_us)
    s.metrics.put_batch_max_time_us = static_cast<uint64_t>(took);
  s.batch.clear();
  if (paused_for_redelivery_) resumeAfterRedelivery();
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
  for (const auto& r : state_.batch.records) {
    if (!run_start || r.partition() != run_start->partition() || r.topic() != run_start->topic()) {
      endRun();
      run_start = &r;
      run_next = 0;
    }
    run_next = std::max(run_next, r.offset() + 1);
  }
  endRun();
  for (const auto& [tp, offset] : next) state_.ledger.markDelivered(tp, offset);
}

milliseconds WorkerBatchDelivery::retryDelay() const {
  if (state_.context_timeout) return *state_.context_timeout;
  return retryBackoff(retry_attempt_, state_.settings.retry_delay_max);
}

void WorkerBatchDelivery::pauseForRedelivery() {
  if (paused_for_redelivery_) return;
  paused_for_redelivery_ = true;
  state_.consumer->pause(state_.assignment.partitions());
}

void WorkerBatchDelivery::resumeAfterRedelivery() {
  paused_for_redelivery_ = false;
  retry_attempt_ = 0;
  std::vector<TopicPartition> to_resume;
  for (const auto& tp : state_.assignment.assigned())
    if (!state_.assignment.isPaused(tp)) to_resume.push_back(tp);
  state_.consumer->resume(to_resume);
}

void WorkerBatchDelivery::resumeIfNothingToRedeliver() {
  if (paused_for_redelivery_ && state_.batch.empty()) resumeAfterRedelivery();
}

void WorkerBatchDelivery::applyRewinds() {
  if (state_.pending_rewinds.empty()) return;
  rewindTo(std::exchange(state_.pending_rewinds, {}));
}

void WorkerBatchDelivery::rewindTo(const OffsetMap& offsets) {
  if (offsets.empty()) return;
  std::set<TopicPartition> rewound;
  for (const auto& [tp, offset] : offsets) {
    state_.ledger.rewind(tp, offset);
    rewound.insert(tp);
  }
  state_.consumer->seek(offsets, state_.settings.offset_flush_timeout);
  state_.batch.dropPartitions(rewound);
  std::erase_if(state_.parked,
                [&](const MessagePtr& m) { return rewound.contains(partitionOf(m.get())); });
  resumeIfNothingToRedeliver();
}

}  // namespace ksink
